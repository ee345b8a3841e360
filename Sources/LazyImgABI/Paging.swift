import CLazyImgHeader
import LazyImgCore

@_cdecl("lazyimg_set_paging")
public func lazyimg_set_paging(_ pointer: OpaquePointer?, _ distanceRows: UInt, _ hasMore: Int32) -> lazyimg_status {
    withLoader(pointer) { loader throws(LoaderError) in
        try loader.setPaging(distanceRows: Int(clamping: distanceRows), hasMore: hasMore != 0)
        return LAZYIMG_OK
    }
}
