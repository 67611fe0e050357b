import CCurl

/// Process-wide libcurl initialisation.
enum CurlGlobal {
    /// `curl_global_init` is not thread-safe and must run once before any other libcurl call;
    /// a Swift global's initialiser runs exactly once, thread-safely, on first access.
    private static let initResult: CURLcode = cg_global_init_default()

    /// Initialises libcurl on first call; later calls are free.
    static func ensureInitialized() {
        precondition(initResult == CURLE_OK, "curl_global_init failed with code \(initResult.rawValue)")
    }

    /// The loaded libcurl's version line, e.g. `libcurl/7.88.1 OpenSSL/3.0.17 … nghttp2/1.52.0`.
    static var versionDescription: String {
        ensureInitialized()
        return String(cString: curl_version())
    }

    /// Whether the loaded libcurl was built with HTTP/2 support (nghttp2).
    static var supportsHTTP2: Bool {
        ensureInitialized()
        return cg_version_features() & cg_feature_http2() != 0
    }
}
