import CLazyImgHeader
import CLazyImgSupport
import LazyImgCore

extension LoaderError {
    /// The C status for this error.
    var status: lazyimg_status {
        switch self {
        case .invalidArgument: LAZYIMG_E_INVALID_ARGUMENT
        case .outOfRange: LAZYIMG_E_OUT_OF_RANGE
        case .badURL: LAZYIMG_E_BAD_URL
        case .network: LAZYIMG_E_NETWORK
        case .http: LAZYIMG_E_HTTP
        case .decode: LAZYIMG_E_DECODE
        case .unsupported: LAZYIMG_E_UNSUPPORTED
        case .tooLarge: LAZYIMG_E_TOO_LARGE
        case .io: LAZYIMG_E_IO
        case .cancelled: LAZYIMG_E_CANCELLED
        case .noMemory: LAZYIMG_E_NO_MEMORY
        case .misuse: LAZYIMG_E_MISUSE
        case .shutdown: LAZYIMG_E_SHUTDOWN
        case .noImage: LAZYIMG_E_NO_IMAGE
        case .tls: LAZYIMG_E_TLS
        case .protocolViolation: LAZYIMG_E_PROTOCOL
        }
    }
}

/// A C string with static storage.
func cString(_ text: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
}

@_cdecl("lazyimg_strerror")
public func lazyimg_strerror(_ status: lazyimg_status) -> UnsafePointer<CChar> {
    switch status {
    case LAZYIMG_OK: cString("success")
    case LAZYIMG_PENDING: cString("pending: an event will follow")
    case LAZYIMG_DEFERRED: cString("deferred while the list scrolls: an event will follow")
    case LAZYIMG_MISS: cString("not in memory")
    case LAZYIMG_TIMEOUT: cString("timed out waiting")
    case LAZYIMG_NOT_YET: cString("frame not decoded yet: ask again")
    case LAZYIMG_PLACEHOLDER: cString("the row's placeholder, not its image: an event will follow")
    case LAZYIMG_E_INVALID_ARGUMENT: cString("invalid argument")
    case LAZYIMG_E_OUT_OF_RANGE: cString("row out of range")
    case LAZYIMG_E_BAD_URL: cString("bad URL (http and https load; file only with allow_file_urls)")
    case LAZYIMG_E_NETWORK: cString("network error or timeout (connect, DNS, reset)")
    case LAZYIMG_E_HTTP: cString("HTTP error status")
    case LAZYIMG_E_DECODE: cString("corrupt or truncated image")
    case LAZYIMG_E_UNSUPPORTED: cString("unsupported image format")
    case LAZYIMG_E_TOO_LARGE: cString("image or response too large")
    case LAZYIMG_E_IO: cString("I/O error (or a file URL that is not a regular file)")
    case LAZYIMG_E_CANCELLED: cString("cancelled")
    case LAZYIMG_E_NO_MEMORY: cString("out of memory")
    case LAZYIMG_E_MISUSE: cString("library misuse")
    case LAZYIMG_E_SHUTDOWN: cString("loader is shutting down")
    case LAZYIMG_E_NO_IMAGE: cString("row has no image URL")
    case LAZYIMG_E_TLS: cString("TLS failed: certificate not trusted or not for this host, or no common protocol")
    case LAZYIMG_E_PROTOCOL: cString("the server's reply broke HTTP (headers too large, not HTTP/1.x, redirect loop, no body)")
    case LAZYIMG_E_BAD_PLACEHOLDER: cString("placeholder hash does not parse")
    default: cString("unknown status")
    }
}

@_cdecl("lazyimg_create_error")
public func lazyimg_create_error() -> UnsafePointer<CChar> {
    lazyimg_create_error_get()
}

@_cdecl("lazyimg_version_string")
public func lazyimg_version_string() -> UnsafePointer<CChar> {
    // Must match LAZYIMG_VERSION_STRING in the header (a test checks).
    cString("0.4.0")
}

@_cdecl("lazyimg_version_number")
public func lazyimg_version_number() -> UInt32 {
    UInt32(LAZYIMG_VERSION_NUMBER)
}
