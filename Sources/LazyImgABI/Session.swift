import CLazyImgHeader
import LazyImgCore

// A `lazyimg_session *` is an unmanaged ImageSession: +1 for the host, and a strong
// reference in every loader's configuration.

@_cdecl("lazyimg_session_create")
public func lazyimg_session_create(_ cfg: UnsafePointer<lazyimg_config>?,
                                   _ out: UnsafeMutablePointer<OpaquePointer?>?) -> lazyimg_status {
    guard let out else { return LAZYIMG_E_INVALID_ARGUMENT }
    out.pointee = nil
    do {
        let (configuration, _) = try readConfig(cfg)
        let session = try ImageSession(diskCacheDirectory: configuration.diskCacheDirectory,
                                       diskCacheBytes: configuration.diskCacheBytes,
                                       maxConcurrentDownloads: configuration.maxConcurrentDownloads,
                                       memoryCacheBytes: configuration.memoryCacheBytes)
        out.pointee = OpaquePointer(Unmanaged.passRetained(session).toOpaque())
        return LAZYIMG_OK
    } catch {
        return error.status
    }
}

@_cdecl("lazyimg_session_destroy")
public func lazyimg_session_destroy(_ pointer: OpaquePointer?) {
    guard let pointer else { return }
    Unmanaged<ImageSession>.fromOpaque(UnsafeRawPointer(pointer)).release()
}
