import Foundation
import Testing

/// A real program a test runs (a pooler, a standby), which `deploy/test.sh` installs.
///
/// Where one is missing, a test marked `.requires(.pgbouncer)` is skipped with a message
/// naming the command that installs it — except under `CI=true`, where it runs and fails
/// with that message: CI must never pass by skipping the tests that exercise it.
///
/// ```swift
/// @Test(.requires(.pgbouncer)) func survivesAPoolerRestart() throws {
///     let bouncer = try PgBouncer(server: host, port: port, poolMode: .transaction, users: [role])
///     …
/// }
/// ```
///
/// The infrastructure classes call `path()` themselves, so a test that forgets the trait
/// still fails with the same clear message instead of a spawn error.
enum RequiredComponent: String, CaseIterable, Sendable {
    case pgbouncer
    case psql
    case pgBasebackup = "pg_basebackup"
    case pgCtl = "pg_ctl"
    // The deploy files' checkers (DeployFilesTests, ContainerBuildTests).
    case systemdAnalyze = "systemd-analyze"
    case logrotate
    case python3Yaml = "python3 (with yaml)"
    // The independent validator of the published schemas (PublishedSchemaTests).
    case python3JSONSchema = "python3 (with jsonschema)"
    case kubectl
    // Metrics and alerts (ObservabilityTests, OpsMetricsTests).
    case promtool
    case pushgateway = "prometheus-pushgateway"
    // The test CA and server certificate of TLSTests.
    case openssl
    // The reference webhook receiver (deploy/examples/webhook_receiver.py) in a virtual
    // environment with PyPI's standardwebhooks (WebhookDeliveryTests).
    case standardWebhooks = "python3 venv with standardwebhooks"
    // Shows the notifications file fsync'ed before the outbox marks it (WebhookDeliveryTests).
    case strace

    /// The program's full path, or nil when it is not installed.
    var installedPath: String? {
        switch self {
        case .pgbouncer, .promtool, .pushgateway:
            Subprocess.executable(rawValue)
        case .psql, .pgBasebackup, .pgCtl:
            Subprocess.postgresBinDirectory.map { "\($0)/\(rawValue)" }
                .flatMap { FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil }
        case .systemdAnalyze, .logrotate, .kubectl, .openssl, .strace:
            Subprocess.executable(rawValue)
        case .standardWebhooks:
            Self.receiverPython
        case .python3Yaml:
            Self.python3WithYaml
        case .python3JSONSchema:
            Self.python3WithJSONSchema
        }
    }

    var isInstalled: Bool { installedPath != nil }

    /// /usr/bin/python3 when it can `import yaml` (Debian's python3-yaml).
    private static let python3WithYaml: String? = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"),
              let check = try? Subprocess.run(["/usr/bin/python3", "-c", "import yaml"], limitSeconds: 30),
              check.status == 0 else { return nil }
        return "/usr/bin/python3"
    }()

    /// /usr/bin/python3 when it can `import jsonschema` (Debian's python3-jsonschema).
    private static let python3WithJSONSchema: String? = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"),
              let check = try? Subprocess.run(["/usr/bin/python3", "-c", "import jsonschema"], limitSeconds: 30),
              check.status == 0 else { return nil }
        return "/usr/bin/python3"
    }()

    /// The Python of a virtual environment with `standardwebhooks` (PyPI, the Standard
    /// Webhooks reference library): made once per machine in the temporary directory with
    /// `python3 -m venv` (Debian's python3-venv) and pip, reused by later test runs.
    private static let receiverPython: String? = {
        let venv = FileManager.default.temporaryDirectory.appendingPathComponent("plan-regen-webhook-venv").path
        let python = venv + "/bin/python"
        let ready = { (try? Subprocess.run([python, "-c", "import standardwebhooks"], limitSeconds: 30))?.status == 0 }
        if FileManager.default.isExecutableFile(atPath: python), ready() { return python }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"),
              (try? Subprocess.run(["/usr/bin/python3", "-m", "venv", venv], limitSeconds: 120))?.status == 0,
              (try? Subprocess.run([venv + "/bin/pip", "install", "--quiet", "standardwebhooks==1.1.0"],
                                   limitSeconds: 300))?.status == 0,
              ready() else { return nil }
        return python
    }()

    /// The program's full path; throws `RequiredComponentError` when it is missing.
    func path() throws -> String {
        guard let path = installedPath else { throw RequiredComponentError(component: self) }
        return path
    }

    /// The Debian package that brings it.
    var package: String {
        switch self {
        case .pgbouncer: "pgbouncer"
        case .psql: "postgresql-client"
        case .pgBasebackup, .pgCtl: "postgresql"
        case .systemdAnalyze: "systemd"
        case .logrotate: "logrotate"
        case .python3Yaml: "python3-yaml"
        case .python3JSONSchema: "python3-jsonschema"
        // Not in Debian's archive at a version with kustomize's replacements: the machine
        // image brings it from Kubernetes' own package repository.
        case .kubectl: "kubectl"
        case .promtool: "prometheus"
        case .pushgateway: "prometheus-pushgateway"
        case .openssl: "openssl"
        case .standardWebhooks: "python3-venv, then pip install standardwebhooks (PyPI)"
        case .strace: "strace"
        }
    }

    /// True when CI runs the tests (`CI=true`, as `.ci/run` sets): missing components fail
    /// tests there instead of skipping them.
    static var isCI: Bool {
        ["true", "1", "yes"].contains(ProcessInfo.processInfo.environment["CI"]?.lowercased() ?? "")
    }

    /// Whether a test needing these components runs: always under CI (it then fails on the
    /// missing one), elsewhere only when all are installed.
    static func shouldRun(_ components: [RequiredComponent]) -> Bool {
        isCI || components.allSatisfy(\.isInstalled)
    }

    static func skipReason(_ components: [RequiredComponent]) -> String {
        let missing = components.filter { !$0.isInstalled }.map(\.rawValue)
        return "not installed: \(missing.joined(separator: ", ")); deploy/test.sh installs it "
            + "(deploy/install-deps.sh --test). Skipped here; under CI=true the test fails instead."
    }
}

struct RequiredComponentError: Error, CustomStringConvertible {
    var component: RequiredComponent

    var description: String {
        "\(component.rawValue) is not installed (Debian package \(component.package)): run the tests with "
            + "deploy/test.sh, which installs it (deploy/install-deps.sh --test)"
            + (RequiredComponent.isCI ? "; CI=true: a test that needs it fails instead of being skipped" : "")
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only where the components are installed, and always under CI (see
    /// `RequiredComponent`).
    static func requires(_ components: RequiredComponent...) -> Self {
        .enabled(
            if: RequiredComponent.shouldRun(components),
            Comment(rawValue: RequiredComponent.skipReason(components)))
    }
}
