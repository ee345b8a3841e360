import CLazyImgHeader
import Glibc

/// `lazyimg_set_scroll_target(loader, first, count)`, looked up at run time: the
/// harness must build and run against libraries that do not have it yet, and use it
/// once they do.
struct ScrollTargetCall: Sendable {
    typealias Function = @convention(c) (OpaquePointer?, Int, Int) -> lazyimg_status

    let function: Function

    /// The function when the running program (the statically linked library) exports it.
    static let available: ScrollTargetCall? = {
        guard let program = dlopen(nil, RTLD_NOW), let symbol = dlsym(program, "lazyimg_set_scroll_target") else {
            return nil
        }
        return ScrollTargetCall(function: unsafeBitCast(symbol, to: Function.self))
    }()

    func callAsFunction(_ loader: OpaquePointer?, first: Int, count: Int) -> lazyimg_status {
        function(loader, first, count)
    }
}
