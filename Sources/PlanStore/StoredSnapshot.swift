import PlanJSON
import PlanRules

extension Snapshot {
    /// The snapshot with every object's keys in jsonb's order: what the job COPYs into
    /// `plan_history.snapshot` and `previous`. PostgreSQL keeps a jsonb object's keys in
    /// that order whatever order they are sent in, so the stored value is the same; but
    /// its parser sorts each object's keys, and keys that arrive sorted cost it one pass
    /// instead of a sort, a good part of jsonb's parse time for a snapshot.
    public func storageJSONBytes() -> [UInt8] { jsonBytes(keyOrder: .jsonb) }

    /// The same bytes appended to `bytes` (`BatchWrite.json`).
    public func appendStorageJSON(to bytes: inout [UInt8]) { appendJSON(keyOrder: .jsonb, to: &bytes) }
}

extension SnapshotKeyOrder {
    static let jsonb = SnapshotKeyOrder(sortedBy: jsonbKeyPrecedes)
}

/// jsonb's key order (PostgreSQL `lengthCompareJsonbString`): the shorter key first,
/// equal lengths bytewise.
func jsonbKeyPrecedes(_ a: String, _ b: String) -> Bool {
    a.utf8.count != b.utf8.count ? a.utf8.count < b.utf8.count : a.utf8.lexicographicallyPrecedes(b.utf8)
}
