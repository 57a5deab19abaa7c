/// A PEM certificate (chain) and its private key, served with libmicrohttpd's own TLS (GnuTLS).
public struct TLSCredentials: Sendable {
    /// The certificate, leaf first, optionally followed by intermediates.
    public var certificatePEM: String
    /// The private key for the leaf certificate (PKCS#1 or PKCS#8, unencrypted).
    public var keyPEM: String

    /// Creates credentials from PEM text.
    public init(certificatePEM: String, keyPEM: String) {
        self.certificatePEM = certificatePEM
        self.keyPEM = keyPEM
    }

    /// A reason the text is not usable PEM, naming which part, or nil; the pairing itself is
    /// checked by GnuTLS when the server starts.
    public func problem() -> String? {
        if !certificatePEM.contains("-----BEGIN CERTIFICATE-----") {
            return "the certificate file holds no PEM certificate (-----BEGIN CERTIFICATE-----)"
        }
        if !(keyPEM.contains("-----BEGIN ") && keyPEM.contains("PRIVATE KEY-----")) {
            return "the key file holds no PEM private key (-----BEGIN … PRIVATE KEY-----)"
        }
        if keyPEM.contains("ENCRYPTED") {
            return "the private key is encrypted; give an unencrypted key"
        }
        return nil
    }
}
