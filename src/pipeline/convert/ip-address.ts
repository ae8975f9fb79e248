import { isIP } from 'node:net';

/**
 * Whether `value` is an IP address as node's `isIP` judges it (non-zero), with the usual dotted
 * IPv4 form answered by a scan instead of isIP's regular expressions: this runs for every address
 * attribute of every LEEF event converted to ECS. Anything else still goes to isIP.
 */
export function isIpAddress(value: string): boolean {
  return isPlainIPv4(value) || isIP(value) !== 0;
}

/**
 * True only for four decimal octets 0-255 joined by dots, without leading zeros: exactly the
 * strings isIP's IPv4 expression accepts (false says nothing; isIP then decides).
 */
export function isPlainIPv4(value: string): boolean {
  const n = value.length;
  if (n < 7 || n > 15) return false;
  let dots = 0;
  let digits = 0;
  let octet = 0;
  for (let i = 0; i < n; i++) {
    const c = value.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || ++dots > 3) return false;
      digits = 0;
      octet = 0;
      continue;
    }
    if (c < 48 || c > 57) return false;
    // A leading zero makes a second digit invalid ("01" is refused; "0" alone is fine).
    if (digits === 1 && octet === 0) return false;
    octet = octet * 10 + (c - 48);
    if (++digits > 3 || octet > 255) return false;
  }
  return dots === 3 && digits > 0;
}
