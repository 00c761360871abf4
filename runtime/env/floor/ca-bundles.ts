// Where a distribution keeps its trusted CAs: pip's system trust store reads these, and piper's own
// downloads (the JavaScript toolchain's) trust the same store as the machine does. The first found
// is the host's.
export const SYSTEM_CA_BUNDLES = [
  '/etc/ssl/certs/ca-certificates.crt',
  '/etc/pki/tls/certs/ca-bundle.crt',
  '/etc/ssl/ca-bundle.pem',
  '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem',
  '/etc/ssl/cert.pem',
];
