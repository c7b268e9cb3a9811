import Foundation
import Testing
import TestSupport

/// `deploy/test-report.sh`, which gives deploy/test.sh its closing summary line and CI its
/// list of compiler warnings, read from logs shaped like swift 6.3's own output.
@Suite struct TestReportScriptTests {
    /// XCTest prints its harness even with no XCTest tests; Swift Testing counts skipped
    /// tests in its closing line's total.
    @Test func aPassingRunWithSkippedTests() throws {
        let log = """
            Test Suite 'All tests' started at 2026-11-24 03:06:45.489
            Test Suite 'All tests' passed at 2026-11-24 03:06:45.490
            \t Executed 0 tests, with 0 failures (0 unexpected) in 0.0 (0.0) seconds
            ◇ Test run started.
            ↳ Testing Library Version: 6.3.1 (937120cbc281cf2)
            ◇ Suite PoolerTests started.
            ➜ Test "a transaction pooler moves the run between backends" skipped: "pgbouncer is not installed"
            ◇ Test ok() started.
            ✔ Test ok() passed after 0.001 seconds.
            ◇ Test param(x:) started.
            ✔ Test param(x:) with 3 test cases passed after 0.002 seconds.
            ✔ Suite PoolerTests passed after 0.003 seconds.
            ✔ Test run with 3 tests in 1 suite passed after 96.34 seconds.
            """
        #expect(try summary(of: log, status: 0, seconds: 151)
            == "test summary: 3 tests, 2 passed, 0 failed, 1 skipped in 96.3 s (2 min 31 s in all); swift test exit status 0")
    }

    /// Failed tests are counted once each, whatever their number of issues or test cases;
    /// a known issue passes; a skipped suite's tests are each skipped; XCTest's counts add up.
    @Test func aFailingRunCountsFailedTestsNotIssues() throws {
        let log = """
            Test Suite 'All tests' started at 2026-11-24 03:06:45.489
            Test Case 'X.testA' passed (0.001 seconds)
            /src/Tests/LibTests/T.swift:15: error: X.testB : XCTAssertEqual failed: ("2") is not equal to ("3") -
            Test Case 'X.testB' failed (0.0 seconds)
            Test Case 'X.testC' skipped (0.0 seconds)
            Test Suite 'X' failed at 2026-11-24 03:06:45.496
            \t Executed 3 tests, with 1 test skipped and 1 failure (0 unexpected) in 0.5 (0.5) seconds
            Test Suite 'All tests' failed at 2026-11-24 03:06:45.496
            \t Executed 3 tests, with 1 test skipped and 1 failure (0 unexpected) in 0.5 (0.5) seconds
            ◇ Test run started.
            ➜ Suite Off skipped: "whole suite"
            ➜ Test a() skipped: "whole suite"
            ➜ Test b() skipped: "whole suite"
            ✘ Test bad() recorded an issue at T.swift:6:22: Expectation failed: (two() → 2) == 3
            ✘ Test bad() recorded an issue at T.swift:7:22: Expectation failed: (two() → 2) == 4
            ✘ Test bad() failed after 0.001 seconds with 2 issues.
            ━ Test known() passed after 0.001 seconds with 1 known issue.
            ✔ Test ok() passed after 0.001 seconds.
            ✘ Test "a change at 23:59 local applies the next day" with 3 test cases failed after 0.001 seconds with 1 issue.
            ✘ Suite S failed after 0.001 seconds with 3 issues (including 1 known issue).
            ✘ Test run with 6 tests in 2 suites failed after 2.0 seconds with 3 issues (including 1 known issue).
            """
        // 3 XCTest + 6 Swift Testing; failed: testB, bad(), the 23:59 test; skipped: testC, a(), b().
        #expect(try summary(of: log, status: 1, seconds: 40)
            == "test summary: 9 tests, 3 passed, 3 failed, 3 skipped in 2.5 s (40 s in all); swift test exit status 1")
    }

    @Test func aRunThatCrashedBeforeItsClosingLineSaysSo() throws {
        let log = """
            Test Suite 'All tests' started at 2026-11-24 03:06:45.489
            \t Executed 0 tests, with 0 failures (0 unexpected) in 0.0 (0.0) seconds
            ◇ Test run started.
            ✔ Test ok() passed after 0.001 seconds.
            ✘ Test bad() failed after 0.001 seconds with 1 issue.
            error: Exited with unexpected signal code 4
            """
        #expect(try summary(of: log, status: 1, seconds: 12).hasPrefix(
            "test summary: INCOMPLETE, the test process ended before its closing line (crashed or killed?); seen: 1 passed, 1 failed, 0 skipped (12 s in all); swift test exit status 1"))
    }

    @Test func aRunWithoutResultsSaysSoAndTheWarningsAreCounted() throws {
        #expect(try summary(of: "error: no tests found\n", status: 1, seconds: 3, warnings: 2)
            == "test summary: no test results in the output (build or start failed?) (3 s in all); swift test exit status 1; 2 compiler warning(s) in the project, listed after the build")
    }

    /// Only the project's own files count, each warning once (swift repeats some).
    @Test func warningsOfTheProjectsOwnFilesOnly() throws {
        let root = "/work/plan-regen"
        let log = """
            [12/300] Compiling Postgres Connection.swift
            \(root)/.build/checkouts/swift-log/Sources/Logging/Logging.swift:10:5: warning: deprecated
            /usr/lib/swift/linux/Foundation.swiftmodule:1:1: warning: outside the project
            \(root)/Tests/NightlyRunTests/Support/PlanRegenProcess.swift:24:29: warning: result of call to 'createFile(atPath:contents:attributes:)' is unused [#no-usage]
            22 |         let name = UUID().uuidString
               |                             `- warning: result of call to 'createFile(atPath:contents:attributes:)' is unused [#no-usage]
            \(root)/Tests/NightlyRunTests/Support/PlanRegenProcess.swift:24:29: warning: result of call to 'createFile(atPath:contents:attributes:)' is unused [#no-usage]
            \(root)/Sources/PlanRules/Targets/Water.swift:3:9: warning: variable 'x' was never mutated; consider changing to 'let' constant
            \(root)/Sources/PlanRules/Targets/Water.swift:4:1: note: a note is not a warning
            \(root)-other/Sources/A.swift:1:1: warning: a sibling directory is not the project
            Build complete! (40.99s)
            """
        #expect(try run(["warnings", root + "/", "LOG"], log: log) == """
            \(root)/Sources/PlanRules/Targets/Water.swift:3:9: warning: variable 'x' was never mutated; consider changing to 'let' constant
            \(root)/Tests/NightlyRunTests/Support/PlanRegenProcess.swift:24:29: warning: result of call to 'createFile(atPath:contents:attributes:)' is unused [#no-usage]

            """)
        #expect(try run(["warnings", root, "LOG"], log: "Build complete! (1.00s)\n") == "")
    }

    private func summary(of log: String, status: Int, seconds: Int, warnings: Int = 0) throws -> String {
        try run(["summary", "LOG", "\(status)", "\(seconds)", "\(warnings)"], log: log)
            .trimmingCharacters(in: .newlines)
    }

    /// Runs the script with `arguments`, LOG replaced by a file holding `log`; its stdout.
    private func run(_ arguments: [String], log: String) throws -> String {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../deploy/test-report.sh").standardized.path
        return try withTemporaryDirectory { folder in
            let logPath = folder + "/swift.log"
            try log.write(toFile: logPath, atomically: true, encoding: .utf8)
            let run = try runCapturingStandardOutput(URL(fileURLWithPath: "/bin/bash"),
                                                     [script] + arguments.map { $0 == "LOG" ? logPath : $0 })
            #expect(run.status == 0)
            return run.stdout
        }
    }
}
