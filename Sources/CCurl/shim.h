#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed
// wrapper per kind of argument.

enum { ccurl_error_buffer_size = CURL_ERROR_SIZE };

static inline CURLcode ccurl_global_init(void) {
    return curl_global_init(CURL_GLOBAL_DEFAULT);
}

typedef size_t (*ccurl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode ccurl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_set_headers(CURL *handle, struct curl_slist *headers) {
    return curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers);
}

static inline CURLcode ccurl_set_callback(CURL *handle, CURLoption option, ccurl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode ccurl_set_ca_blob(CURL *handle, void *data, size_t length) {
    struct curl_blob blob = { data, length, CURL_BLOB_COPY };
    return curl_easy_setopt(handle, CURLOPT_CAINFO_BLOB, &blob);
}

static inline long ccurl_response_code(CURL *handle) {
    long code = 0;
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &code);
    return code;
}

/// The CA bundle file libcurl uses by default (Debian: /etc/ssl/certs/ca-certificates.crt), or NULL.
static inline const char *ccurl_default_ca_bundle(void) {
    return curl_version_info(CURLVERSION_NOW)->cainfo;
}

typedef int (*ccurl_progress_callback)(void *context, curl_off_t download_total, curl_off_t downloaded,
                                       curl_off_t upload_total, curl_off_t uploaded);

/// Calls `callback` as the transfer progresses (NULL: never).
static inline CURLcode ccurl_set_progress(CURL *handle, ccurl_progress_callback callback, void *context) {
    curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
    curl_easy_setopt(handle, CURLOPT_XFERINFODATA, context);
    return curl_easy_setopt(handle, CURLOPT_NOPROGRESS, callback ? 0L : 1L);
}
