/** The three SIEM drivers (spec 2.1). */
export const DRIVERS = ['vendorA_hec', 'syslog_tcp', 'vendorB_bulk'] as const;
export type DriverName = (typeof DRIVERS)[number];

export const PAYLOAD_FORMATS = ['leef', 'ecs'] as const;
export type PayloadFormat = (typeof PAYLOAD_FORMATS)[number];

export const HEADER_MODES = ['preserve_raw', 'synthesize_if_missing', 'force_synthesize'] as const;
export type HeaderMode = (typeof HEADER_MODES)[number];

export const SYSLOG_FORMATS = ['rfc3164', 'rfc5424'] as const;
export type SyslogFormat = (typeof SYSLOG_FORMATS)[number];

export const FRAMINGS = ['lf', 'octet_counting'] as const;
export type Framing = (typeof FRAMINGS)[number];

/** Payload format a driver uses when none is configured. */
export const DEFAULT_PAYLOAD_FORMAT: Record<DriverName, PayloadFormat> = {
  vendorA_hec: 'leef',
  syslog_tcp: 'leef',
  vendorB_bulk: 'ecs',
};

/** Fields every destination has. */
export interface DestinationBase {
  readonly id: string;
  readonly name: string;
  readonly payload_format: PayloadFormat;
  /** Default index (index-aware drivers; on syslog_tcp it is the `labIndex=` default). */
  readonly index: string | null;
  readonly enabled: boolean;
}

/** TLS options of an outbound connection: verification on by default, optional private CA. */
export interface TlsSettings {
  readonly tls_verify: boolean;
  readonly ca_pem: string | null;
}

/** An HTTP Event Collector SIEM with its management API. */
export interface HecDestination extends DestinationBase, TlsSettings {
  readonly driver: 'vendorA_hec';
  readonly url: string;
  readonly token: string;
  readonly management_url: string | null;
  readonly management_token: string | null;
  readonly management_username: string | null;
  readonly management_password: string | null;
  readonly sourcetype: string | null;
  readonly source: string | null;
  /** Value of the X-Splunk-Request-Channel header, when the collector wants one. */
  readonly channel: string | null;
}

/** An Elasticsearch 8+ or OpenSearch 2+ cluster fed through `_bulk`. */
export interface BulkDestination extends DestinationBase, TlsSettings {
  readonly driver: 'vendorB_bulk';
  readonly url: string;
  readonly api_key: string | null;
  readonly username: string | null;
  readonly password: string | null;
}

/** SIEM Q console API settings of a syslog destination. */
export interface SiemQSettings extends TlsSettings {
  readonly console_url: string;
  readonly token: string | null;
  readonly event_collector_id: number | null;
  readonly log_source_type: string;
  readonly log_source_protocol: string;
}

/** A syslog receiver over TCP or TLS (SIEM Q and others). */
export interface SyslogDestination extends DestinationBase, TlsSettings {
  readonly driver: 'syslog_tcp';
  readonly host: string;
  readonly port: number;
  readonly tls: boolean;
  readonly source_identity: string | null;
  readonly header_mode: HeaderMode;
  readonly syslog_format: SyslogFormat;
  readonly framing: Framing;
  /** Syslog facility (0-23) and severity (0-7) of synthesized headers; PRI 134 by default. */
  readonly facility: number;
  readonly severity: number;
  readonly provision_log_source: boolean;
  readonly offense_cleanup: boolean;
  readonly siem_q: SiemQSettings | null;
}

/** A destination with its secrets decrypted: what a driver is built from. Never sent to clients. */
export type Destination = HecDestination | BulkDestination | SyslogDestination;
