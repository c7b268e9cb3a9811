import Foundation
import Testing

/// Debian's `chromium`, headless, opening a page as a person would (`deploy/test.sh`
/// installs it). Where it is missing a test records nothing and returns nil — except under
/// `CI=true`, where that is a failure: CI must never pass by skipping the browser checks.
struct HeadlessChromium {
    let path: String

    /// The installed browser, or nil (an issue recorded under CI) when it is missing.
    static func required() -> HeadlessChromium? {
        if let path = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
            .first(where: FileManager.default.isExecutableFile(atPath:)) {
            return HeadlessChromium(path: path)
        }
        let ci = ["true", "1", "yes"].contains(ProcessInfo.processInfo.environment["CI"]?.lowercased() ?? "")
        if ci { Issue.record("chromium is not installed (Debian package chromium): run the tests with deploy/test.sh") }
        return nil
    }

    struct Opened {
        /// The DOM after load (`--dump-dom`).
        var dom: String
        /// Console messages and errors Chromium logged, without the dbus noise of a machine
        /// that has no session bus, and without its own IPC plumbing's complaints (`mojo/`:
        /// a loaded machine once made `--dump-dom`'s shutdown log "Message … rejected by
        /// interface blink.mojom.FrameWidgetHost", which says nothing about the page), nor
        /// its GPU process's (`gpu/`: under load, "SharedImageManager::ProduceMemory: Trying
        /// to Produce a Memory representation from a non-existent mailbox").
        var consoleErrors: [String]
    }

    /// Loads `file` and returns its DOM and what the console and renderer logged as errors.
    func open(_ file: String, folder: String) throws -> Opened {
        let result = try run(["--dump-dom", "--enable-logging=stderr", "--v=0", "file://" + file], folder: folder)
        let errors = lines(result.stderr).filter { line in
            (line.contains(":CONSOLE") || line.contains(":ERROR:")) && !line.contains("dbus")
                && !line.contains(":ERROR:mojo/") && !line.contains(":ERROR:gpu/")
        }
        return Opened(dom: result.stdout, consoleErrors: errors)
    }

    /// Opens a page plan-regen wrote: it must be self-contained (no script, stylesheet link
    /// or remote address) and load without a console error.
    func openReportPage(_ file: String, folder: String) throws -> Opened {
        let html = try String(contentsOfFile: file, encoding: .utf8)
        #expect(!html.contains("<script") && !html.contains("http://") && !html.contains("https://")
                && !html.contains("<link"), "\(file) must be self-contained")
        let opened = try open(file, folder: folder)
        #expect(opened.consoleErrors.isEmpty, "\(opened.consoleErrors)")
        return opened
    }

    /// Saves a PNG of `file` at a window of `width` × `height` pixels.
    func screenshot(_ file: String, to png: String, width: Int, height: Int, folder: String) throws {
        let result = try run(["--screenshot=" + png, "--window-size=\(width),\(height)", "--hide-scrollbars",
                              "file://" + file], folder: folder)
        #expect(FileManager.default.fileExists(atPath: png), "no screenshot of \(file): \(result.stderr)")
    }

    private func run(_ arguments: [String], folder: String) throws -> (stdout: String, stderr: String) {
        let name = UUID().uuidString
        let stdoutPath = "\(folder)/\(name).chromium.out", stderrPath = "\(folder)/\(name).chromium.err"
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(folder)/chromium-profile"]
            + arguments
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        try process.run()
        // A bounded wait: a browser that hangs is stopped after two minutes, and the test fails.
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning, Date() < deadline { usleep(50_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            Issue.record("chromium \(arguments) did not finish within 120 s")
        }
        return (try String(contentsOfFile: stdoutPath, encoding: .utf8),
                try String(contentsOfFile: stderrPath, encoding: .utf8))
    }
}

/// How often `needle` occurs in `text`.
func occurrences(of needle: String, in text: String) -> Int {
    text.components(separatedBy: needle).count - 1
}
