import Foundation
import NightlyRun
import Testing

/// The notifications file (`--notifications FILE`) after a run killed mid-write.
@Suite struct NotificationSinkTests {
    static func file(holding text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sink-\(UUID().uuidString).jsonl")
        try Data(text.utf8).write(to: url)
        return url
    }

    /// A fragment left by a killed writer stays a line of its own: the next complete line
    /// is not glued to it.
    @Test func aPartialLastLineIsEndedBeforeAppending() throws {
        let url = try Self.file(holding: "{\"id\":\"1\"}\n{\"id\":\"2\",\"ti")
        defer { try? FileManager.default.removeItem(at: url) }
        try NotificationSink.appending(toFile: url.path).emit(["{\"id\":\"2\"}", "{\"id\":\"3\"}"])
        #expect(try String(contentsOf: url, encoding: .utf8)
                == "{\"id\":\"1\"}\n{\"id\":\"2\",\"ti\n{\"id\":\"2\"}\n{\"id\":\"3\"}\n")
    }

    @Test(arguments: ["", "{\"id\":\"1\"}\n"])
    func aCompleteFileIsAppendedToAsIs(existing: String) throws {
        let url = try Self.file(holding: existing)
        defer { try? FileManager.default.removeItem(at: url) }
        try NotificationSink.appending(toFile: url.path).emit(["{\"id\":\"2\"}"])
        #expect(try String(contentsOf: url, encoding: .utf8) == existing + "{\"id\":\"2\"}\n")
    }
}
