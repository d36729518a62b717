import Foundation
import LullAPI
import LullTestSupport
import Testing

/// The committed man pages render cleanly and match their sources; the committed completion
/// scripts are what the argument parser generates and load in bash.
struct ManPageAndCompletionTests {
    static let repository = PythonExample.repository
    static let pages = ["man/lullctl.1", "man/lulld.8", "man/lull.toml.5"]
    static let manDate = "2026-11-21"

    static func path(_ relative: String) -> String { repository.appendingPathComponent(relative).path }

    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/man"),
            "needs man-db (make test installs it)"
        ),
        arguments: pages
    )
    func pageRendersWithoutWarnings(_ page: String) throws {
        var environment = ProcessInfo.processInfo.environment
        environment["MANWIDTH"] = "80"
        environment["MAN_DISABLE_SECCOMP"] = "1"  // man-db's sandbox is not allowed in every container
        environment["MAN_KEEP_FORMATTING"] = nil
        // The page goes in on stdin: run as root, man-db may drop to its own user, which cannot
        // necessarily read a checkout under /root.
        let source = try Data(contentsOf: URL(fileURLWithPath: Self.path(page)))
        let result = try CommandRunner.run(
            "/usr/bin/man",
            ["--warnings", "-l", "-"],
            environment: environment,
            input: source
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "groff warnings for \(page):\n\(result.stderr)")
        #expect(result.stdout.contains("NAME"))
        #expect(result.stdout.split(separator: "\n").count > 20, "\(page) renders to a real page")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs python3"))
    func configurationPageIsGeneratedFromTheReference() throws {
        let generated = try CommandRunner.run(
            "/usr/bin/python3",
            [Self.path("man/md2man.py"), Self.path("docs/configuration.md"), Self.manDate]
        )
        #expect(generated.status == 0, "\(generated.stderr)")
        let committed = try String(contentsOfFile: Self.path("man/lull.toml.5"), encoding: .utf8)
        #expect(generated.stdout == committed, "man/lull.toml.5 is stale: run make man")
        // Every key documented in the reference has its paragraph in the page.
        let reference = try String(contentsOfFile: Self.path("docs/configuration.md"), encoding: .utf8)
        let keys = reference.split(separator: "\n").filter { $0.hasPrefix("#### `") }
            .flatMap {
                $0.dropFirst(5).split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "`"))
                }
            }
        #expect(keys.count > 15)
        for key in keys {
            #expect(
                committed.contains("\\fB\(key.replacingOccurrences(of: "-", with: "\\-"))\\fR"),
                "\(key) is in lull.toml(5)"
            )
        }
    }

    /// Issue 30: lulld(8) read "lulld subcommand" and lacked the sections an admin looks for.
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/man"),
            "needs man-db (make test installs it)"
        )
    )
    func lulldPageHasFilesSignalsExitStatusAndSeeAlso() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["MANWIDTH"] = "80"
        environment["MAN_DISABLE_SECCOMP"] = "1"
        environment["MAN_KEEP_FORMATTING"] = nil
        let source = try Data(contentsOf: URL(fileURLWithPath: Self.path("man/lulld.8")))
        let page = try CommandRunner.run("/usr/bin/man", ["-l", "-"], environment: environment, input: source).stdout
        let headings = page.split(separator: "\n").filter { $0.first?.isUppercase == true }.map(String.init)
        for section in ["FILES", "SIGNALS", "EXIT STATUS", "SEE ALSO"] {
            #expect(headings.contains(section), "\(headings)")
        }
        #expect(!page.contains("subcommand"), "\(page)")
        #expect(page.contains("SIGHUP") && page.contains("/etc/lull/lull.toml") && page.contains("lull.toml(5)"))
        for status in LulldExitStatus.allCases {
            #expect(page.contains("     \(status.rawValue) "), "exit status \(status.rawValue)")
        }
    }

    @Test func lullctlPageCoversEverySubcommand() throws {
        let help = try CommandRunner.run(DaemonProcess.binary("lullctl"), ["--help"])
        let subcommands =
            help.stdout.components(separatedBy: "SUBCOMMANDS:").last?.split(separator: "\n")
            .compactMap { $0.split(separator: " ").first.map(String.init) }.filter { !$0.isEmpty && $0 != "See" } ?? []
        #expect(subcommands.contains("watch") && subcommands.contains("top"), "\(subcommands)")
        let page = try String(contentsOfFile: Self.path("man/lullctl.1"), encoding: .utf8)
        for subcommand in subcommands {
            #expect(page.contains(subcommand), "lullctl(1) lacks \(subcommand): run make man")
        }
    }

    @Test(arguments: [
        ("lullctl", "bash", "lullctl.bash"), ("lullctl", "zsh", "_lullctl"), ("lullctl", "fish", "lullctl.fish"),
        ("lulld", "bash", "lulld.bash"), ("lulld", "zsh", "_lulld"), ("lulld", "fish", "lulld.fish"),
    ])
    func completionScriptIsWhatTheParserGenerates(_ tool: String, _ shell: String, _ file: String) throws {
        let generated = try CommandRunner.run(DaemonProcess.binary(tool), ["--generate-completion-script", shell])
        #expect(generated.status == 0)
        let committed = try String(contentsOfFile: Self.path("completions/\(file)"), encoding: .utf8)
        #expect(generated.stdout == committed, "completions/\(file) is stale: run make completions")
    }

    @Test(arguments: ["lullctl", "lulld"])
    func bashCompletionLoads(_ tool: String) throws {
        let script = Self.path("completions/\(tool).bash")
        let result = try CommandRunner.run("/bin/bash", ["-c", "source '\(script)' && complete -p \(tool)"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        #expect(result.stdout.contains("complete") && result.stdout.contains(tool))
    }
}
