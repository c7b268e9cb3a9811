import Foundation
import PlanStore
import Testing

/// The README and `docs/` point only at what the repository holds: every relative link
/// names a file that exists, and every `#anchor` a heading of its file; every alert's
/// runbook is a heading of the operations guide. The README stays short, and the pages
/// describe the software, not the story of its making.
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

    /// Every rule of deploy/prometheus (the shipped file and any added beside it) has a
    /// `runbook_url` of `@PLAN_REGEN_DOCS_URL@/operations.md#anchor`, and the anchor is a
    /// heading of docs/operations.md.
    @Test func everyAlertsRunbookIsAHeadingOfTheOperationsGuide() throws {
        let folder = Self.root.appendingPathComponent("deploy/prometheus")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".yml") && !$0.hasSuffix(".test.yml") }
        let guide = try String(contentsOf: Self.root.appendingPathComponent("docs/operations.md"), encoding: .utf8)
        let headings = Self.anchors(in: guide)
        var alerts = 0
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for (alert, runbook) in Self.alertRunbooks(in: text) {
                alerts += 1
                let prefix = "@PLAN_REGEN_DOCS_URL@/operations.md#"
                let url = try #require(runbook, "\(file): \(alert) has no runbook_url")
                #expect(url.hasPrefix(prefix), "\(file): \(alert): \(url)")
                let anchor = String(url.dropFirst(prefix.count))
                #expect(headings.contains(anchor), "\(file): \(alert): docs/operations.md has no heading #\(anchor)")
            }
        }
        #expect(alerts >= 9)
    }

    /// Each `- alert: NAME` of a rules file with the `runbook_url` of its rule, if any.
    static func alertRunbooks(in rules: String) -> [(alert: String, runbook: String?)] {
        var result: [(alert: String, runbook: String?)] = []
        for line in rules.split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("- alert:") {
                result.append((String(text.dropFirst("- alert:".count)).trimmingCharacters(in: .whitespaces), nil))
            } else if text.hasPrefix("runbook_url:"), !result.isEmpty {
                result[result.count - 1].runbook = String(text.dropFirst("runbook_url:".count))
                    .trimmingCharacters(in: CharacterSet(charactersIn: " \"'"))
            }
        }
        return result
    }

    /// The `status` samples show the schema a current binary leaves: the last migration.
    @Test func theStatusSamplesShowTheLatestSchema() throws {
        let latest = try #require(Migration.planRegen.last?.name)
        var samples = 0
        for document in Self.documents {
            let text = try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8)
            for line in text.split(separator: "\n") where line.hasPrefix("versions ") && line.contains(" · schema ") {
                samples += 1
                #expect(line.contains(" · schema \(latest) · "), "\(document): \(line)")
            }
        }
        #expect(samples >= 2)
    }

    /// The README is read in ten minutes: at most 250 lines, a table of contents first.
    @Test func theReadmeIsShortWithATableOfContentsFirst() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count <= 250, "README.md has \(lines.count) lines")
        let firstSection = try #require(lines.firstIndex { $0.hasPrefix("## ") })
        #expect(lines[firstSection] == "## Contents")
    }

    /// The pages document the software: no log of how it was made (numbered sessions,
    /// sittings, rounds), and the old log itself is gone.
    @Test(arguments: documents)
    func noPageReadsAsALogOfTheWork(document: String) throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8).lowercased()
        for word in ["sitting", "twentieth", "nineteenth", "eighteenth", "seventeenth", "fourteenth",
                     "tenth session", "round 1", "scale-history"] {
            #expect(!text.contains(word), "\(document) contains \"\(word)\"")
        }
        #expect(!FileManager.default.fileExists(atPath: Self.root.appendingPathComponent("docs/scale-history.md").path))
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
