import CLazyImgHeader
@_cdecl("lazyimg_strerror")
public func lazyimg_strerror(_ s: lazyimg_status) -> UnsafePointer<CChar> {
    return UnsafeRawPointer(("x" as StaticString).utf8Start).assumingMemoryBound(to: CChar.self)
}
@_cdecl("lazyimg_loader_create")
public func lazyimg_loader_create(_ cfg: UnsafePointer<lazyimg_config>?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> lazyimg_status {
    return LAZYIMG_OK
}
