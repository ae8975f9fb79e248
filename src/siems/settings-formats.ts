import { syslogHostnameProblem } from '../pipeline/syslog/syslog-hostname.ts';

/** A string format SIEM settings use: a check, and what to tell the person who got it wrong. */
interface SettingFormat {
  /** Why `value` is not of the format, or undefined when it is. */
  readonly problem: (value: string) => string | undefined;
}

/** The string formats of SIEM settings schemas (`Type.String({ format })`), by name. */
export const SETTING_FORMATS: Readonly<Record<string, SettingFormat>> = {
  /** An http(s) base URL without credentials, query or fragment (credentials have their own fields). */
  'siem-url': {
    problem(value) {
      let u: URL;
      try {
        u = new URL(value);
      } catch {
        return 'must be an absolute http(s) URL';
      }
      if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'must be an http(s) URL';
      if (u.username || u.password) return 'must not carry credentials; use the credential fields';
      if (u.search || u.hash) return 'must not carry a query or fragment';
      return undefined;
    },
  },
  /** A host name or an IPv4/IPv6 address. */
  host: {
    problem(value) {
      if (value.length === 0 || value.length > 253) return 'must be a host name or address';
      return /^[A-Za-z0-9.:_[\]-]+$/.test(value) ? undefined : 'must be a host name or address';
    },
  },
  /** A syslog HOSTNAME (decisions.md §5): printable ASCII without spaces, at most 255 characters. */
  'syslog-hostname': { problem: syslogHostnameProblem },
  /** PEM text holding at least one certificate. */
  'pem-certificates': {
    problem(value) {
      return /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.test(value)
        ? undefined
        : 'must hold at least one PEM certificate (-----BEGIN CERTIFICATE-----)';
    },
  },
};
