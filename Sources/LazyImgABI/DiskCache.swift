import CLazyImgHeader
import LazyImgCore

@_cdecl("lazyimg_disk_cache_clear")
public func lazyimg_disk_cache_clear(_ pointer: OpaquePointer?) -> lazyimg_status {
    withLoader(pointer) { loader throws(LoaderError) in
        try loader.clearDiskCache()
        return LAZYIMG_OK
    }
}

@_cdecl("lazyimg_disk_cache_remove_url")
public func lazyimg_disk_cache_remove_url(_ pointer: OpaquePointer?, _ url: UnsafePointer<CChar>?) -> lazyimg_status {
    guard let url else { return LAZYIMG_E_INVALID_ARGUMENT }
    return withLoader(pointer) { loader throws(LoaderError) in
        try loader.removeFromDiskCache(url: ImageURL(cString: url))
        return LAZYIMG_OK
    }
}
