// GET /api/siem-kinds as this build answers it (the three built-in kinds), for tests.
import type { SiemKind } from './types.ts';

export const KINDS: SiemKind[] = [
  {
    name: 'vendorA_hec',
    title: 'HTTP Event Collector (SIEM A)',
    payload_formats: ['leef', 'ecs'],
    capabilities: {
      indexes: 'native',
      labels_index: false,
      index_creation: true,
      wipe: true,
      source_identity: false,
    },
    secret_fields: ['token', 'management_token', 'management_password'],
    settings: {
      type: 'object',
      required: ['url', 'token'],
      properties: {
        url: {
          type: 'string',
          format: 'siem-url',
          description: 'collector base URL, e.g. https://siem-a:8088',
        },
        token: {
          type: 'string',
          minLength: 1,
          maxLength: 512,
          description: 'HEC token',
          writeOnly: true,
        },
        management_url: {
          type: 'string',
          format: 'siem-url',
          description: 'management API base URL, e.g. https://siem-a:8089',
        },
        management_token: {
          type: 'string',
          maxLength: 4096,
          description: 'sent as Authorization: Bearer',
          writeOnly: true,
        },
        management_username: {
          type: 'string',
          maxLength: 256,
          description: 'basic auth user',
        },
        management_password: {
          type: 'string',
          maxLength: 1024,
          description: 'basic auth password',
          writeOnly: true,
        },
        sourcetype: {
          type: 'string',
          maxLength: 256,
          description: 'event sourcetype',
        },
        source: {
          type: 'string',
          maxLength: 256,
          description: 'event source',
        },
        channel: {
          type: 'string',
          maxLength: 64,
          description: 'X-Splunk-Request-Channel value (GUID)',
        },
        tls_verify: {
          type: 'boolean',
          description: 'verify the server certificate',
          default: true,
        },
        ca_pem: {
          type: 'string',
          format: 'pem-certificates',
          maxLength: 1000000,
          'x-multiline': true,
          description: 'PEM CA bundle trusted in addition to the system CAs',
        },
      },
      title: 'vendorA_hec settings',
    },
  },
  {
    name: 'syslog_tcp',
    title: 'Syslog over TCP/TLS (SIEM Q and others)',
    payload_formats: ['leef'],
    capabilities: {
      indexes: 'label',
      labels_index: true,
      index_creation: false,
      wipe: false,
      source_identity: true,
    },
    secret_fields: ['siem_q.token'],
    settings: {
      type: 'object',
      required: ['host', 'port'],
      properties: {
        host: {
          type: 'string',
          format: 'host',
          description: 'receiver host name or address',
        },
        port: {
          type: 'integer',
          minimum: 1,
          maximum: 65535,
          description: 'receiver TCP port',
        },
        tls: {
          type: 'boolean',
          description: 'TLS instead of plain TCP',
          default: false,
        },
        source_identity: {
          type: 'string',
          format: 'syslog-hostname',
          maxLength: 255,
          description: 'HOSTNAME of synthesized syslog headers',
        },
        header_mode: {
          enum: ['preserve_raw', 'synthesize_if_missing', 'force_synthesize'],
          description: 'syslog header handling',
          default: 'synthesize_if_missing',
        },
        syslog_format: {
          enum: ['rfc3164', 'rfc5424'],
          description: 'header format when synthesized',
          default: 'rfc3164',
        },
        framing: {
          enum: ['lf', 'octet_counting'],
          description: 'TCP framing (RFC 6587)',
          default: 'lf',
        },
        facility: {
          type: 'integer',
          minimum: 0,
          maximum: 23,
          description: 'facility of synthesized headers (16 = local0)',
          default: 16,
        },
        severity: {
          type: 'integer',
          minimum: 0,
          maximum: 7,
          description: 'severity of synthesized headers (6 = info)',
          default: 6,
        },
        provision_log_source: {
          type: 'boolean',
          description: 'SIEM Q: one log source per exercise section',
          default: false,
        },
        offense_cleanup: {
          type: 'boolean',
          description: 'SIEM Q: close offenses when an attempt ends',
          default: false,
        },
        tls_verify: {
          type: 'boolean',
          description: 'verify the server certificate',
          default: true,
        },
        ca_pem: {
          type: 'string',
          format: 'pem-certificates',
          maxLength: 1000000,
          'x-multiline': true,
          description: 'PEM CA bundle trusted in addition to the system CAs',
        },
        siem_q: {
          type: 'object',
          required: ['console_url'],
          properties: {
            console_url: {
              type: 'string',
              format: 'siem-url',
              description: 'SIEM Q console base URL',
            },
            token: {
              type: 'string',
              maxLength: 512,
              description: 'authorized service token (SEC header)',
              writeOnly: true,
            },
            event_collector_id: {
              type: 'integer',
              minimum: 0,
              maximum: 2147483647,
              description: 'event collector id',
            },
            log_source_type: {
              type: 'string',
              maxLength: 256,
              description: 'log source type name',
              default: 'Universal LEEF',
            },
            log_source_protocol: {
              type: 'string',
              maxLength: 256,
              description: 'log source protocol name',
              default: 'Syslog',
            },
            tls_verify: {
              type: 'boolean',
              description: 'verify the server certificate',
              default: true,
            },
            ca_pem: {
              type: 'string',
              format: 'pem-certificates',
              maxLength: 1000000,
              'x-multiline': true,
              description: 'PEM CA bundle trusted in addition to the system CAs',
            },
          },
          description: 'SIEM Q console API settings',
        },
      },
      title: 'syslog_tcp settings',
    },
  },
  {
    name: 'vendorB_bulk',
    title: 'Elasticsearch / OpenSearch bulk (SIEM B)',
    payload_formats: ['ecs'],
    capabilities: {
      indexes: 'native',
      labels_index: true,
      index_creation: true,
      wipe: true,
      source_identity: false,
    },
    secret_fields: ['api_key', 'password'],
    settings: {
      type: 'object',
      required: ['url'],
      properties: {
        url: {
          type: 'string',
          format: 'siem-url',
          description: 'cluster URL, e.g. https://siem-b:9200',
        },
        api_key: {
          type: 'string',
          maxLength: 4096,
          description: 'sent as Authorization: ApiKey',
          writeOnly: true,
        },
        username: {
          type: 'string',
          maxLength: 256,
          description: 'basic auth user',
        },
        password: {
          type: 'string',
          maxLength: 1024,
          description: 'basic auth password',
          writeOnly: true,
        },
        tls_verify: {
          type: 'boolean',
          description: 'verify the server certificate',
          default: true,
        },
        ca_pem: {
          type: 'string',
          format: 'pem-certificates',
          maxLength: 1000000,
          'x-multiline': true,
          description: 'PEM CA bundle trusted in addition to the system CAs',
        },
      },
      title: 'vendorB_bulk settings',
    },
  },
];
