import CLazyImgHeader
import LazyImgCore

@_cdecl("lazyimg_set_scroll_target")
public func lazyimg_set_scroll_target(_ pointer: OpaquePointer?, _ first: UInt, _ count: UInt) -> lazyimg_status {
    withLoader(pointer) { loader throws(LoaderError) in
        try loader.setScrollTarget(first: Int(clamping: first), count: Int(clamping: count))
        return LAZYIMG_OK
    }
}
