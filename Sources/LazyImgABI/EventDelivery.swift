import CLazyImgHeader
import LazyImgCore

/// Converts a core event to a `lazyimg_event` and calls the host. The URL and image
/// are borrowed for the call: the event holds the image alive until it returns.
func deliver(_ event: LoaderEvent, to callback: EventCallback) {
    guard let function = callback.function else { return }
    var ev = lazyimg_event()
    ev.struct_size = UInt32(MemoryLayout<lazyimg_event>.size)
    ev.row = Int(event.row)
    ev.ticket = event.ticket
    ev.http_status = Int32(clamping: event.httpStatus)
    var image: DecodedImage?
    switch event.outcome {
    case .image(let decoded, let source):
        image = decoded
        ev.type = LAZYIMG_EVENT_IMAGE
        ev.status = LAZYIMG_OK
        switch source {
        case .memory: ev.source = LAZYIMG_SOURCE_MEMORY
        case .disk: ev.source = LAZYIMG_SOURCE_DISK
        case .network: ev.source = LAZYIMG_SOURCE_NETWORK
        }
    case .failed(let error):
        ev.type = LAZYIMG_EVENT_FAILED
        ev.status = error.status
        ev.source = LAZYIMG_SOURCE_NONE
    case .data:
        ev.type = LAZYIMG_EVENT_DATA
        ev.status = LAZYIMG_OK
        ev.source = LAZYIMG_SOURCE_NETWORK
    case .needPage:
        ev.type = LAZYIMG_EVENT_NEED_PAGE
        ev.status = LAZYIMG_OK
        ev.source = LAZYIMG_SOURCE_NONE
    case .preview(let decoded):
        image = decoded
        ev.type = LAZYIMG_EVENT_PREVIEW
        ev.status = LAZYIMG_OK
        ev.source = LAZYIMG_SOURCE_NETWORK
    }
    guard case .data(let bytes) = event.outcome, !bytes.isEmpty else {
        return call(function, callback.userData, &ev, event, image)
    }
    bytes.withUnsafeBufferPointer { data in
        ev.data = data.baseAddress
        ev.data_size = data.count
        call(function, callback.userData, &ev, event, image)
    }
}

/// The message of an event without one: "" (never NULL), static, so that an image's
/// event needs no C string made for it.
private let noMessage: StaticString = ""

/// Calls the host with the URL, message and image of `event` borrowed for the call.
private func call(_ function: lazyimg_event_fn, _ userData: UnsafeMutableRawPointer?,
                  _ ev: inout lazyimg_event, _ event: LoaderEvent, _ image: DecodedImage?) {
    withExtendedLifetime(image) {
        ev.image = image.map { OpaquePointer(Unmanaged.passUnretained($0).toOpaque()) }
        event.url.withCString { url in
            ev.url = url
            guard !event.message.isEmpty else {
                // A failure without details of its own says what its status says.
                if case .failed = event.outcome {
                    ev.message = lazyimg_strerror(ev.status)
                } else {
                    ev.message = UnsafeRawPointer(noMessage.utf8Start).assumingMemoryBound(to: CChar.self)
                }
                return function(userData, &ev)
            }
            event.message.withCString { message in
                ev.message = message
                function(userData, &ev)
            }
        }
    }
}
