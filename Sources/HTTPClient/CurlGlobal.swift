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
}
