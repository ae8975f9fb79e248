import { Type } from 'typebox';
import { FRAMINGS, HEADER_MODES, SYSLOG_FORMATS } from '../../pipeline/syslog/syslog-options.ts';
import { Defaulted, Secret } from '../settings-schema.ts';
import { TlsSettings } from '../shared/tls-settings.ts';
import type { KindDestination } from '../siem-kind.ts';

/** SIEM Q console API settings of a syslog destination (decisions.md §4, §7). */
export const SiemQSettings = Type.Object(
  {
    console_url: Type.String({ format: 'siem-url', description: 'SIEM Q console base URL' }),
    token: Type.Optional(
      Secret(Type.String({ maxLength: 512, description: 'authorized service token (SEC header)' })),
    ),
    event_collector_id: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'event collector id' }),
    ),
    log_source_type: Defaulted(
      Type.String({ maxLength: 256, description: 'log source type name' }),
      'Universal LEEF',
    ),
    log_source_protocol: Defaulted(
      Type.String({ maxLength: 256, description: 'log source protocol name' }),
      'Syslog',
    ),
    closing_reason: Defaulted(
      Type.String({
        minLength: 1,
        maxLength: 60,
        description: 'offense closing reason (its text) used by offense cleanup',
      }),
      'Non-Issue',
    ),
    ...TlsSettings,
  },
  { description: 'SIEM Q console API settings' },
);

/** Settings of a syslog receiver over TCP or TLS, SIEM Q among them (decisions.md §4). */
export const SyslogTcpSettings = Type.Object(
  {
    host: Type.String({ format: 'host', description: 'receiver host name or address' }),
    port: Type.Integer({ minimum: 1, maximum: 65535, description: 'receiver TCP port' }),
    tls: Defaulted(Type.Boolean({ description: 'TLS instead of plain TCP' }), false),
    source_identity: Type.Optional(
      Type.String({
        format: 'syslog-hostname',
        maxLength: 255,
        description: 'HOSTNAME of synthesized syslog headers',
      }),
    ),
    header_mode: Defaulted(
      Type.Enum(HEADER_MODES, { description: 'syslog header handling' }),
      'synthesize_if_missing',
    ),
    syslog_format: Defaulted(
      Type.Enum(SYSLOG_FORMATS, { description: 'header format when synthesized' }),
      'rfc3164',
    ),
    framing: Defaulted(Type.Enum(FRAMINGS, { description: 'TCP framing (RFC 6587)' }), 'lf'),
    facility: Defaulted(
      Type.Integer({ minimum: 0, maximum: 23, description: 'facility of synthesized headers (16 = local0)' }),
      16,
    ),
    severity: Defaulted(
      Type.Integer({ minimum: 0, maximum: 7, description: 'severity of synthesized headers (6 = info)' }),
      6,
    ),
    provision_log_source: Defaulted(
      Type.Boolean({ description: 'SIEM Q: one log source per exercise section' }),
      false,
    ),
    offense_cleanup: Defaulted(
      Type.Boolean({ description: 'SIEM Q: close offenses when an attempt ends' }),
      false,
    ),
    ...TlsSettings,
    siem_q: Type.Optional(SiemQSettings),
  },
  { title: 'syslog_tcp settings' },
);

/** A syslog_tcp destination as its client reads it. */
export type SyslogDestination = KindDestination<(typeof SyslogTcpSettings)['properties']>;

/** Its SIEM Q settings, when set. */
export type SiemQDestinationSettings = NonNullable<SyslogDestination['siem_q']>;
