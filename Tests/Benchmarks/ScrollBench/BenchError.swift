/// Why the benchmark could not run (it never fails on its figures).
public enum BenchError: Error, CustomStringConvertible {
    case setup(String)

    public var description: String {
        switch self {
        case .setup(let message): message
        }
    }
}
