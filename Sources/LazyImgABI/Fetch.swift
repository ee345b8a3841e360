import CLazyImgHeader
import LazyImgCore

@_cdecl("lazyimg_fetch")
public func lazyimg_fetch(_ pointer: OpaquePointer?, _ url: UnsafePointer<CChar>?,
                          _ outTicket: UnsafeMutablePointer<UInt64>?) -> lazyimg_status {
    guard let outTicket else { return LAZYIMG_E_INVALID_ARGUMENT }
    outTicket.pointee = 0
    guard let url else { return LAZYIMG_E_INVALID_ARGUMENT }
    return withLoader(pointer) { loader throws(LoaderError) in
        outTicket.pointee = try loader.fetch(url: ImageURL(cString: url))
        return LAZYIMG_PENDING
    }
}
