import CLazyImgHeader
import LazyImgCore

// Placeholder hashes per row (include/lazyimg.h, "placeholders").

@_cdecl("lazyimg_set_placeholders")
public func lazyimg_set_placeholders(_ pointer: OpaquePointer?, _ firstRow: UInt, _ kind: lazyimg_placeholder_kind,
                                     _ hashes: UnsafePointer<UnsafePointer<CChar>?>?, _ count: UInt,
                                     _ outBadRow: UnsafeMutablePointer<UInt>?,
                                     _ outReason: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> lazyimg_status {
    outBadRow?.pointee = 0
    outReason?.pointee = cString("")
    let parsedKind: Placeholder.Kind
    switch kind {
    case LAZYIMG_PLACEHOLDER_BLURHASH: parsedKind = .blurHash
    case LAZYIMG_PLACEHOLDER_THUMBHASH: parsedKind = .thumbHash
    default: return LAZYIMG_E_INVALID_ARGUMENT
    }
    guard count == 0 || hashes != nil, count <= UInt(Int.max / MemoryLayout<UnsafeRawPointer>.size) else {
        return LAZYIMG_E_INVALID_ARGUMENT
    }
    let first = Int(clamping: firstRow)
    var placeholders: [Placeholder?] = []
    var refused: (row: Int, error: PlaceholderError)?
    if let hashes {
        placeholders.reserveCapacity(Int(count))
        for (offset, hash) in UnsafeBufferPointer(start: hashes, count: Int(count)).enumerated() {
            guard let hash else {
                placeholders.append(nil)
                continue
            }
            do throws(PlaceholderError) {
                placeholders.append(try Placeholder(parsedKind, cString: hash))
            } catch {
                placeholders.append(nil)
                if refused == nil { refused = (first.addingReportingOverflow(offset).partialValue, error) }
            }
        }
    }
    let status = withLoader(pointer) { loader throws(LoaderError) in
        try loader.setPlaceholders(first: first, placeholders)
        return LAZYIMG_OK
    }
    guard status == LAZYIMG_OK, let refused else { return status }
    outBadRow?.pointee = UInt(refused.row)
    outReason?.pointee = cString(refused.error.message)
    return LAZYIMG_E_BAD_PLACEHOLDER
}

@_cdecl("lazyimg_lookup_placeholder")
public func lazyimg_lookup_placeholder(_ pointer: OpaquePointer?, _ row: UInt,
                                       _ out: UnsafeMutablePointer<OpaquePointer?>?) -> lazyimg_status {
    answerLookup(pointer, out) { loader throws(LoaderError) in try loader.lookupPlaceholder(row: Int(clamping: row)) }
}

/// `lazyimg_request`'s answer for a row that waits for its image: PLACEHOLDER with
/// the row's placeholder in `outImage`, or nil when the row has none (the request
/// then answers PENDING or DEFERRED as before).
func placeholderAnswer(_ loader: ImageLoader, row: Int, _ outImage: UnsafeMutablePointer<OpaquePointer?>) -> lazyimg_status? {
    guard let image = loader.placeholder(forRow: row) else { return nil }
    outImage.pointee = imagePointer(passRetained: image)
    return LAZYIMG_PLACEHOLDER
}
