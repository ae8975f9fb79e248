/** How a shipment treats syslog headers (spec 2.1 Header mode). */
export const HEADER_MODES = ['preserve_raw', 'synthesize_if_missing', 'force_synthesize'] as const;
export type HeaderMode = (typeof HEADER_MODES)[number];

/** The RFC of synthesized headers. */
export const SYSLOG_FORMATS = ['rfc3164', 'rfc5424'] as const;
export type SyslogFormat = (typeof SYSLOG_FORMATS)[number];

/** TCP framing of syslog messages (RFC 6587): LF-terminated or octet-counted. */
export const FRAMINGS = ['lf', 'octet_counting'] as const;
export type Framing = (typeof FRAMINGS)[number];
