#ifndef LAZYIMG_CCURL_SHIM_H
#define LAZYIMG_CCURL_SHIM_H
/* Typed wrappers for libcurl's variadic setopt/getinfo, which Swift cannot call. */
#include <curl/curl.h>

typedef size_t (*lazyimg_curl_write_fn)(char *data, size_t size, size_t nmemb, void *userdata);
typedef int (*lazyimg_curl_xferinfo_fn)(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                                        curl_off_t ultotal, curl_off_t ulnow);

static inline CURLcode lazyimg_curl_set_long(CURL *h, CURLoption opt, long value) {
    return curl_easy_setopt(h, opt, value);
}
static inline CURLcode lazyimg_curl_set_string(CURL *h, CURLoption opt, const char *value) {
    return curl_easy_setopt(h, opt, value);
}
static inline CURLcode lazyimg_curl_set_pointer(CURL *h, CURLoption opt, void *value) {
    return curl_easy_setopt(h, opt, value);
}
static inline CURLcode lazyimg_curl_set_off(CURL *h, CURLoption opt, curl_off_t value) {
    return curl_easy_setopt(h, opt, value);
}
static inline CURLcode lazyimg_curl_set_slist(CURL *h, CURLoption opt, struct curl_slist *value) {
    return curl_easy_setopt(h, opt, value);
}
/* A blob libcurl uses in place (CURL_BLOB_NOCOPY): it must outlive the handle. */
static inline CURLcode lazyimg_curl_set_blob(CURL *h, CURLoption opt, void *data, size_t len) {
    struct curl_blob blob = {data, len, CURL_BLOB_NOCOPY};
    return curl_easy_setopt(h, opt, &blob);
}
static inline CURLcode lazyimg_curl_set_write_fn(CURL *h, lazyimg_curl_write_fn fn) {
    return curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, fn);
}
static inline CURLcode lazyimg_curl_set_header_fn(CURL *h, lazyimg_curl_write_fn fn) {
    return curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, fn);
}
static inline CURLcode lazyimg_curl_set_xferinfo_fn(CURL *h, lazyimg_curl_xferinfo_fn fn) {
    return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, fn);
}
static inline CURLcode lazyimg_curl_get_long(CURL *h, CURLINFO info, long *out) {
    return curl_easy_getinfo(h, info, out);
}
static inline CURLcode lazyimg_curl_get_off(CURL *h, CURLINFO info, curl_off_t *out) {
    return curl_easy_getinfo(h, info, out);
}
static inline CURLcode lazyimg_curl_get_pointer(CURL *h, CURLINFO info, void **out) {
    return curl_easy_getinfo(h, info, out);
}
static inline CURLMcode lazyimg_curl_multi_set_long(CURLM *m, CURLMoption opt, long value) {
    return curl_multi_setopt(m, opt, value);
}
/* CURLMsg's union is awkward in Swift: return the result of a DONE message. */
static inline CURLcode lazyimg_curl_msg_result(const CURLMsg *msg) {
    return msg->data.result;
}

#endif
