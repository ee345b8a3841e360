/// A system call in a test helper failed; tests cannot go on without it.
public enum TestSupportError: Error {
    case system(call: String, errno: Int32)
}
