import CCurl

extension LoaderError {
    /// The error a failed libcurl transfer (or setopt) reports to the loader.
    /// HTTP statuses and our own size abort are decided by `CurlTransfer` before this.
    init(curlCode code: CURLcode) {
        switch code {
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            self = .badURL
        case CURLE_FILESIZE_EXCEEDED:
            self = .tooLarge
        case CURLE_FILE_COULDNT_READ_FILE, CURLE_READ_ERROR:
            self = .io
        case CURLE_OUT_OF_MEMORY:
            self = .noMemory
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CACERT_BADFILE,
             CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
             CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE, CURLE_SSL_CLIENTCERT:
            self = .tls
        case CURLE_TOO_MANY_REDIRECTS:
            // CurlTransfer+Redirect follows redirects itself; were libcurl to, a loop
            // would be the server's fault all the same. The last 3xx status still
            // reaches the host through `httpStatus`.
            self = .protocolViolation(.tooManyRedirects)
        default:
            // Timeouts, DNS, connect, resets, empty replies (GOT_NOTHING), bodies
            // cut short (PARTIAL_FILE) and whatever else breaks a transfer off: the
            // header's NETWORK is the promise that covers them all.
            self = .network
        }
    }

}
