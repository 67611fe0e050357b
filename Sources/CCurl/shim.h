#ifndef CAMPUS_GATEWAY_CCURL_SHIM_H
#define CAMPUS_GATEWAY_CCURL_SHIM_H
#include <curl/curl.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call.
   These typed wrappers are the only way the Swift side touches them. */
static inline CURLcode cg_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode cg_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode cg_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode cg_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode cg_setopt_offset(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
typedef size_t (*cg_data_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
static inline CURLcode cg_setopt_write_function(CURL *h, cg_data_callback f) { return curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, f); }
static inline CURLcode cg_setopt_header_function(CURL *h, cg_data_callback f) { return curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, f); }
/* Upload source (an SMTP message): libcurl asks for the next bytes until the callback returns 0. */
static inline CURLcode cg_setopt_read_function(CURL *h, cg_data_callback f) { return curl_easy_setopt(h, CURLOPT_READFUNCTION, f); }
/* CURLINFO_RESPONSE_CODE as the last server reply code (the HTTP status, or SMTP's 250, 451, 550 ...). */
static inline long cg_response_code(CURL *h) { long code = 0; if (curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code) != CURLE_OK) return 0; return code; }
/* CURLOPT_USE_SSL's strictest value, as a long (STARTTLS required or the transfer fails). */
static inline long cg_use_ssl_all(void) { return (long)CURLUSESSL_ALL; }
static inline CURLcode cg_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode cg_getinfo_string(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }
/* Progress callback (used to abort a transfer when its Swift Task is cancelled). */
typedef int (*cg_xferinfo_callback)(void *clientp, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);
static inline CURLcode cg_setopt_xferinfo_function(CURL *h, cg_xferinfo_callback f) { return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, f); }
/* Destination guard: libcurl calls this to create every socket it is about to connect, with
   the resolved address, so the address can be vetted before any packet is sent. */
static inline CURLcode cg_setopt_opensocket_function(CURL *h, curl_opensocket_callback f) { return curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, f); }
/* CURL_GLOBAL_DEFAULT is a composite macro that Swift does not import. */
static inline CURLcode cg_global_init_default(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }
static inline long cg_error_size(void) { return CURL_ERROR_SIZE; }
/* Feature bits of the libcurl actually loaded at run time (CURLVERSION_NOW is a macro). */
static inline int cg_version_features(void) { return curl_version_info(CURLVERSION_NOW)->features; }
static inline int cg_feature_http2(void) { return CURL_VERSION_HTTP2; }
/* curl_multi_setopt is variadic; Swift calls this typed form (CURLMOPT_MAX_HOST_CONNECTIONS, ...). */
static inline CURLMcode cg_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

#endif
