/// How log lines look on stderr (`--log-format`).
///
/// - `text`: for people and journald —
///   `2026-11-22T07:00:00.125Z info run started as_of=2026-11-22T07:00:00.000000Z run_id=7`
/// - `json`: one object per line for log shippers —
///   `{"ts":"2026-11-22T07:00:00.125Z","level":"info","msg":"run started","as_of":"…","run_id":"7"}`
///
/// Metadata keys follow the message in alphabetical order, so lines diff and grep well.
/// In JSON every metadata value is a string, so a key never changes type between lines.
public enum LogFormat: String, Sendable, CaseIterable {
    case text
    case json
}
