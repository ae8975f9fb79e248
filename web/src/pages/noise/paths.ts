/** Where App mounts this page (`noise/*`); the page's own links start here. */
export const NOISE_BASE = '/noise';
