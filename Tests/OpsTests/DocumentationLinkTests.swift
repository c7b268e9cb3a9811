import Foundation
import Testing

/// The README and `docs/` point only at what the repository holds: every relative link
/// names a file that exists, and every `#anchor` a heading of its file. (The README once
/// pointed at a rules document kept outside the repository.)
@Suite struct DocumentationLinkTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../..").standardized

    static let documents: [String] = {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }()

    @Test func theRulesDocumentAndTheWorkedExamplesAreInTheRepository() throws {
        #expect(Self.documents.contains("docs/plan-rules.md"))
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("](docs/plan-rules.md)"))
        #expect(readme.contains("](Tests/PlanRulesTests/Fixtures/examples.jsonl)"))
        #expect(!readme.contains("shared/spec"), "the README names a path outside the repository")
    }

    @Test(arguments: documents)
    func everyRelativeLinkResolves(document: String) throws {
        let file = Self.root.appendingPathComponent(document)
        let text = try String(contentsOf: file, encoding: .utf8)
        let links = Self.links(in: text)
        #expect(!links.isEmpty)
        for link in links where !link.contains("://") && !link.hasPrefix("mailto:") {
            let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let target = parts[0].isEmpty ? file : file.deletingLastPathComponent().appendingPathComponent(parts[0])
            #expect(FileManager.default.fileExists(atPath: target.standardized.path), "\(document): \(link) does not exist")
            if parts.count == 2, target.pathExtension == "md" {
                let headings = Self.anchors(in: try String(contentsOf: target, encoding: .utf8))
                #expect(headings.contains(parts[1]), "\(document): no heading for #\(parts[1])")
            }
        }
    }

    /// The targets of `[text](target)` links outside code blocks and code spans.
    static func links(in markdown: String) -> [String] {
        var links: [String] = []
        var inCodeBlock = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inCodeBlock.toggle(); continue }
            if inCodeBlock { continue }
            // Drop code spans: a `[a](b)` inside backticks is not a link.
            let prose = line.split(separator: "`", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 0 }.map(\.element).joined(separator: " ")
            var rest = Substring(prose)
            while let close = rest.range(of: "](") {
                let after = rest[close.upperBound...]
                guard let end = after.firstIndex(of: ")") else { break }
                links.append(String(after[..<end]))
                rest = after[after.index(after: end)...]
            }
        }
        return links
    }

    /// GitHub's heading anchors: lower case, punctuation dropped except `-` and `_`,
    /// spaces as `-`.
    static func anchors(in markdown: String) -> Set<String> {
        var anchors = Set<String>()
        var inCodeBlock = false
        for line in markdown.split(separator: "\n") {
            if line.hasPrefix("```") { inCodeBlock.toggle(); continue }
            guard !inCodeBlock, line.hasPrefix("#") else { continue }
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
            let anchor = title.lowercased().unicodeScalars.compactMap { scalar -> Character? in
                if scalar == " " { return "-" }
                if scalar == "-" || scalar == "_" || CharacterSet.alphanumerics.contains(scalar) { return Character(scalar) }
                return nil
            }
            anchors.insert(String(anchor))
        }
        return anchors
    }
}
