import Glibc

/// The running test binary started again as a child process that runs one test, for
/// tests about several processes and crashes. The child test finds its orders in the
/// environment.
public struct ChildProcess: Sendable {
    public let pid: pid_t

    /// Starts `test` ("Module.Class/testMethod") in a new process with `environment`
    /// added to ours. Descriptors without FD_CLOEXEC are inherited; its output goes
    /// to /dev/null, so XCTest's lines about the child never mix with the parent's.
    public init(test: String, environment: [String: String]) throws {
        let executable = CommandLine.arguments[0]
        let arguments = [executable, test]
        var variables = environment.map { "\($0.key)=\($0.value)" }
        var index = 0
        while let entry = environ[index] {
            variables.append(String(cString: entry))
            index += 1
        }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = variables.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO)
        var child = pid_t()
        let rc = posix_spawn(&child, executable, &actions, nil, argv, envp)
        guard rc == 0 else { throw TestSupportError.system(call: "posix_spawn", errno: rc) }
        pid = child
    }

    /// Waits for the child to end; its exit status, or 128 + the signal that ended it.
    @discardableResult
    public func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// SIGKILL, then reaps it.
    public func kill() {
        _ = Glibc.kill(pid, SIGKILL)
        wait()
    }

    /// This process's value for `name`, when it runs as a child.
    public static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
