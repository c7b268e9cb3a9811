/// A copy template split once into its literal text and its placeholders, so filling it
/// appends pieces to one buffer of UTF-8 bytes: re-scanning every template for `{name}` on each
/// notification, and looking its values up by name, cost a sixth of evaluating a user.
///
/// The split reads the template as the fill always has: from each `{` to the next `}`
/// is a placeholder when the name between them is a `CopyPlaceholder`; anything else
/// (an unknown name, a `{` without a `}`) is text. A placeholder the caller writes no
/// value for stays `{name}`.
struct CopyTemplate: Sendable {
    enum Piece: Sendable {
        /// A range of `text`: appended to the bytes being filled (`LocalizedCopy`). A range
        /// rather than bytes of its own, so that going over the pieces retains nothing.
        case text(Range<Int>)
        case placeholder(CopyPlaceholder)
    }

    let pieces: [Piece]
    /// The template's UTF-8 bytes, which the text pieces are ranges of.
    let text: [UInt8]
    /// The whole template when it has no placeholder (titles, the list separator): the
    /// text is then that string itself, not a copy.
    let plainText: String?
    /// UTF-8 bytes of the text pieces, to reserve the filled string's storage once.
    let textByteCount: Int

    init(_ template: String) {
        let utf8 = Array(template.utf8)
        var pieces: [Piece] = []
        var copiedUpTo = 0
        var index = 0
        func text(_ range: Range<Int>) {
            if !range.isEmpty { pieces.append(.text(range)) }
        }
        while let open = utf8[index...].firstIndex(of: UInt8(ascii: "{")) {
            guard let close = utf8[open...].firstIndex(of: UInt8(ascii: "}")) else { break }
            index = close + 1
            guard let name = CopyPlaceholder(rawValue: String(decoding: utf8[(open + 1)..<close], as: UTF8.self))
            else { continue }
            text(copiedUpTo..<open)
            pieces.append(.placeholder(name))
            copiedUpTo = index
        }
        text(copiedUpTo..<utf8.endIndex)
        self.pieces = pieces
        self.text = utf8
        plainText = pieces.contains { if case .placeholder = $0 { true } else { false } } ? nil : template
        textByteCount = pieces.reduce(0) { count, piece in
            if case .text(let range) = piece { count + range.count } else { count }
        }
    }
}

extension CopyLocale {
    /// This locale's templates, compiled once, at `CopyKey.ordinal`.
    var templates: [CopyTemplate] {
        switch self {
        case .enUS: Self.enUSTemplates
        case .deDE: Self.deDETemplates
        case .esES: Self.esESTemplates
        case .frFR: Self.frFRTemplates
        }
    }

    private static let enUSTemplates = compile(enUSTable)
    private static let deDETemplates = compile(deDETable)
    private static let esESTemplates = compile(esESTable)
    private static let frFRTemplates = compile(frFRTable)

    private static func compile(_ table: CopyTable) -> [CopyTemplate] {
        CopyKey.allCases.map { key in
            precondition(CopyKey.allCases[key.ordinal] == key, "CopyKey.ordinal is out of step with allCases")
            return CopyTemplate(table[key]!)
        }
    }
}
