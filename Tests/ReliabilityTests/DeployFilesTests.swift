import Foundation
import Testing

/// The files operators deploy with (deploy/systemd, crontab, logrotate, kubernetes), read
/// by the real tools that read them in production: systemd-analyze, systemd-sysusers and
/// systemd-tmpfiles, logrotate, kustomize (kubectl's), and a YAML parser.
@Suite struct DeployFilesTests {
    static let units = ["plan-regen.service", "plan-regen.timer", "plan-regen-prune.service", "plan-regen-prune.timer"]

    /// `systemd-analyze verify` on every unit, with ExecStart pointing at the built binary
    /// (verify checks that it exists).
    @Test(.requires(.systemdAnalyze)) func theSystemdUnitsVerify() throws {
        let binary = try JobProcess.binary().path
        try withScratchDirectory { folder in
            for unit in Self.units {
                let text = try String(contentsOfFile: repositoryPath("deploy/systemd/\(unit)"), encoding: .utf8)
                    .replacingOccurrences(of: "/usr/local/bin/plan-regen", with: binary)
                try text.write(toFile: "\(folder)/\(unit)", atomically: true, encoding: .utf8)
            }
            let verify = try Subprocess.run(
                [try RequiredComponent.systemdAnalyze.path(), "verify"] + Self.units.map { "\(folder)/\($0)" })
            #expect(verify.status == 0, "\(verify.stderr)")
            #expect(verify.stderr.isEmpty, "systemd-analyze warned: \(verify.stderr)")
        }
    }

    /// Every scheduler runs `prune` too: its own daily timer, a crontab line, a CronJob.
    @Test(.requires(.python3Yaml)) func everySchedulerRunsPrune() throws {
        let service = try deployFile("systemd/plan-regen-prune.service")
        #expect(service.contains("ExecStart=/usr/local/bin/plan-regen prune --older-than 30d"))
        let timer = try deployFile("systemd/plan-regen-prune.timer")
        #expect(timer.contains("Unit=plan-regen-prune.service"))
        #expect(timer.contains("OnCalendar=*-*-* 03:17:00"))

        let cron = try deployFile("crontab").split(separator: "\n").filter { !$0.hasPrefix("#") && $0.contains(" * ") }
        #expect(cron.count == 2)
        #expect(cron.contains { $0.hasPrefix("*/15 * * * * ") && $0.contains("plan-regen run ") })
        #expect(cron.contains { $0.hasPrefix("17 3 * * * ") && $0.contains("plan-regen prune --older-than 30d") })

        let prune = try YAMLDocuments(file: "kubernetes/cronjob-prune.yaml").single
        #expect(prune["kind"] as? String == "CronJob")
        #expect(try container(of: prune)["args"] as? [String] == ["prune", "--older-than", "30d", "--log-format", "json"])
    }

    /// The crontab writes the metrics file into the one textfile directory the unit uses
    /// too, not beside the notifications (health data) nor into a directory the consumer reads.
    @Test func theCrontabWritesMetricsForTheTextfileCollectorApartFromTheNotifications() throws {
        let run = try #require(try deployFile("crontab").split(separator: "\n").first { $0.hasPrefix("*/15 ") })
        let words = run.split(separator: " ").map(String.init)
        let metrics = try #require(words.firstIndex(of: "--metrics-file").map { words[$0 + 1] })
        let notifications = try #require(words.firstIndex(of: "--notifications").map { words[$0 + 1] })
        #expect(metrics == Self.metricsFile)
        #expect((metrics as NSString).deletingLastPathComponent != (notifications as NSString).deletingLastPathComponent)
        #expect(notifications == Self.notificationsFile)
    }

    static let notificationsFile = "/var/spool/plan-regen/notifications.jsonl"
    static let metricsFile = "/run/plan-regen/plan-regen.prom"

    /// One notifications file and one metrics file everywhere they are named: the unit
    /// (its RuntimeDirectory= is /run/plan-regen), the crontab, `run --help` and the
    /// operations guide; no other spool or textfile directory is mentioned.
    @Test func everyDeploymentNamesTheSameNotificationsAndMetricsFiles() throws {
        let service = try deployFile("systemd/plan-regen.service")
        #expect(service.contains("RuntimeDirectory=plan-regen\n"))
        let unitPaths = service.replacingOccurrences(of: "${RUNTIME_DIRECTORY}", with: "/run/plan-regen")
        let help = try JobProcess.run(["help", "run"])
        let guide = try String(contentsOfFile: repositoryPath("docs/operations.md"), encoding: .utf8)
        for (name, text) in [("plan-regen.service", unitPaths), ("crontab", try deployFile("crontab")),
                             ("run --help", help.stdout), ("docs/operations.md", guide)] {
            #expect(text.contains("--notifications \(Self.notificationsFile)"), "\(name)")
            #expect(text.contains("--metrics-file \(Self.metricsFile)"), "\(name)")
            for stray in ["/var/lib/plan-regen", "node-exporter/", "node_exporter/textfile"] {
                #expect(!text.contains(stray), "\(name) names \(stray)")
            }
        }
    }

    /// Under DynamicUser= the password cannot come from a file root owns: both units take
    /// it as a systemd credential and point libpq's PGPASSFILE at it.
    @Test func theUnitsReadThePasswordAsACredential() throws {
        for unit in ["plan-regen.service", "plan-regen-prune.service"] {
            let text = try deployFile("systemd/\(unit)")
            #expect(text.contains("\nLoadCredential=pgpass:/etc/plan-regen/pgpass\n"), "\(unit)")
            #expect(text.contains("\nEnvironment=PGPASSFILE=%d/pgpass\n"), "\(unit)")
            #expect(text.contains("\nDocumentation=file:/usr/share/doc/plan-regen/operations.md\n"), "\(unit)")
        }
    }

    /// libpq 15 reads verify-full without sslrootcert as ~/.postgresql/root.crt, which no
    /// deployment has: every connection string that asks for verify-full names the CA file.
    @Test func everyVerifyFullExampleNamesItsCA() throws {
        let files = ["deploy/systemd/plan-regen.service", "deploy/crontab", "deploy/kubernetes/cronjob.yaml",
                     "README.md"] + documentationFiles()
        var checked = 0
        for file in files {
            let text = try String(contentsOfFile: repositoryPath(file), encoding: .utf8)
            let connectionStrings = text.split(separator: "\n").filter {
                $0.contains("sslmode=verify-full") && ($0.contains("postgresql://") || $0.contains("host="))
            }
            for line in connectionStrings {
                #expect(line.contains("sslrootcert="), "\(file): \(line)")
            }
            checked += connectionStrings.count
        }
        #expect(checked >= 5)
    }

    /// Under DynamicUser= the notifications go to a directory the consumer's group can
    /// enter: the sysusers and tmpfiles snippets, applied for real to a scratch root, make
    /// it setgid 2770 root:plan-regen-notify, and the unit writes there through that group.
    @Test(.requires(.systemdAnalyze)) func theNotificationsDirectoryIsTheConsumersGroupsUnderDynamicUser() throws {
        let service = try deployFile("systemd/plan-regen.service")
        #expect(service.contains("DynamicUser=yes"))
        #expect(service.contains("SupplementaryGroups=plan-regen-notify"))
        #expect(service.contains("ReadWritePaths=/var/spool/plan-regen"))
        #expect(service.contains("--notifications /var/spool/plan-regen/notifications.jsonl"))
        let settings = service.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(!settings.contains { $0.hasPrefix("StateDirectory=") }, "a DynamicUser= state directory is root's alone")
        #expect(service.contains("UMask=0002"))

        let tools = URL(fileURLWithPath: try RequiredComponent.systemdAnalyze.path()).deletingLastPathComponent().path
        try withScratchDirectory { root in
            try FileManager.default.createDirectory(atPath: root + "/etc", withIntermediateDirectories: true)
            try Subprocess.check(["\(tools)/systemd-sysusers", "--root=\(root)",
                                  repositoryPath("deploy/systemd/plan-regen.sysusers")])
            try Subprocess.check(["\(tools)/systemd-tmpfiles", "--root=\(root)", "--create",
                                  repositoryPath("deploy/systemd/plan-regen.tmpfiles")])
            let group = try String(contentsOfFile: root + "/etc/group", encoding: .utf8)
                .split(separator: "\n").first { $0.hasPrefix("plan-regen-notify:") }
            let gid = try #require(group.flatMap { Int($0.split(separator: ":")[2]) })
            let spool = try FileManager.default.attributesOfItem(atPath: root + "/var/spool/plan-regen")
            #expect((spool[.posixPermissions] as? Int) == 0o2770)
            #expect((spool[.groupOwnerAccountID] as? Int) == gid)
            #expect((spool[.ownerAccountID] as? Int) == 0)
        }
    }

    /// logrotate, run for real on the snippet (paths moved to a scratch directory): the
    /// notifications file is renamed and recreated with its owner, group and mode, and a
    /// run that had it open finishes in the renamed file — no line is lost (copytruncate
    /// would lose those written between its copy and its truncate).
    @Test(.requires(.logrotate)) func logrotateRenamesTheNotificationsAndTheLogWithoutLosingALine() throws {
        let snippet = try deployFile("logrotate/plan-regen")
        #expect(!snippet.contains("copytruncate"))
        try withScratchDirectory { folder in
            let spool = folder + "/spool"
            let log = folder + "/log"
            for directory in [spool, log] {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            // As the tmpfiles snippet makes it, with a group that exists here.
            try Subprocess.check(["chgrp", "postgres", spool])
            try FileManager.default.setAttributes([.posixPermissions: 0o2770], ofItemAtPath: spool)
            let notifications = spool + "/notifications.jsonl"
            try "{\"n\":1}\n".write(toFile: notifications, atomically: false, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o664], ofItemAtPath: notifications)
            try "first log line\n".write(toFile: log + "/plan-regen.log", atomically: false, encoding: .utf8)
            let config = snippet
                .replacingOccurrences(of: "/var/spool/plan-regen", with: spool)
                .replacingOccurrences(of: "/var/log/plan-regen", with: log)
                .replacingOccurrences(of: "su root plan-regen-notify", with: "su root postgres")
            try config.write(toFile: folder + "/logrotate.conf", atomically: true, encoding: .utf8)

            // A run in progress: the file open for appending, as NotificationSink opens it.
            let running = try #require(FileHandle(forWritingAtPath: notifications))
            try running.seekToEnd()
            let rotate = try Subprocess.run([try RequiredComponent.logrotate.path(), "--force",
                                             "--state", folder + "/state", folder + "/logrotate.conf"])
            #expect(rotate.status == 0, "\(rotate.stderr)")
            try running.write(contentsOf: Data("{\"n\":2}\n".utf8))
            try running.close()

            #expect(try String(contentsOfFile: notifications + ".1", encoding: .utf8) == "{\"n\":1}\n{\"n\":2}\n")
            #expect(try String(contentsOfFile: notifications, encoding: .utf8).isEmpty)
            let renewed = try FileManager.default.attributesOfItem(atPath: notifications)
            #expect((renewed[.posixPermissions] as? Int) == 0o664)
            #expect((renewed[.groupOwnerAccountName] as? String) == "postgres")
            #expect(try String(contentsOfFile: log + "/plan-regen.log.1", encoding: .utf8) == "first log line\n")
            #expect(FileManager.default.fileExists(atPath: log + "/plan-regen.log"))
        }
    }

    /// Both run CronJobs: exit 75 (stopped by SIGTERM: a node drain) is not a Job failure;
    /// exits 5 and 6 (work committed, metrics push failed or notifications pending) fail it
    /// at once, never retried; notifications go to the webhook of a Secret; the
    /// run's metrics go to the Pushgateway named in the ConfigMap plan-regen-config (a pod
    /// has no textfile collector).
    @Test(.requires(.python3Yaml)) func theCronJobsIgnoreExit75AndPushTheirMetrics() throws {
        let config = try YAMLDocuments(file: "kubernetes/plan-regen-config.yaml").single
        #expect(config["kind"] as? String == "ConfigMap")
        #expect(try dictionary(config, "metadata")["name"] as? String == "plan-regen-config")
        #expect(try dictionary(config, "data")["METRICS_PUSH_URL"] as? String == "http://prometheus-pushgateway:9091")
        for file in ["kubernetes/cronjob.yaml", "kubernetes/sharded/cronjob-sharded.yaml"] {
            let cronJob = try YAMLDocuments(file: file).single
            let job = try dictionary(cronJob, "spec", "jobTemplate", "spec")
            let template = try dictionary(job, "template", "spec")
            #expect(template["restartPolicy"] as? String == "Never", "podFailurePolicy requires it (\(file))")
            let rules = try #require(try dictionary(job, "podFailurePolicy")["rules"] as? [[String: Any]])
            let ignored = rules.filter { $0["action"] as? String == "Ignore" }
                .compactMap { $0["onExitCodes"] as? [String: Any] }
            #expect(ignored.contains { ($0["values"] as? [Int]) == [75] && $0["operator"] as? String == "In"
                                       && $0["containerName"] as? String == "plan-regen" }, "\(file)")
            // Exit 1 (a fatal error) stays a counted failure.
            #expect(!rules.contains { (($0["onExitCodes"] as? [String: Any])?["values"] as? [Int])?.contains(1) == true })
            let failing = rules.filter { ["FailJob", "FailIndex"].contains($0["action"] as? String) }
                .compactMap { ($0["onExitCodes"] as? [String: Any])?["values"] as? [Int] }.flatMap { $0 }
            #expect(Set(failing) == [4, 5, 6, 64], "\(file)")
            let args = try #require(try container(of: cronJob)["args"] as? [String])
            let push = try #require(args.firstIndex(of: "--metrics-push"), "\(file)")
            #expect(args[push + 1] == "$(METRICS_PUSH_URL)")
            let env = try #require(try container(of: cronJob)["env"] as? [[String: Any]])
            let url = try #require(env.first { $0["name"] as? String == "METRICS_PUSH_URL" })
            let reference = try dictionary(url, "valueFrom", "configMapKeyRef")
            #expect(reference["name"] as? String == "plan-regen-config" && reference["key"] as? String == "METRICS_PUSH_URL")
            // Notifications go to the webhook (never to stdout, the pod's log), its URL and
            // secret from the Secret plan-regen-webhook.
            let notifications = try #require(args.firstIndex(of: "--notifications"), "\(file)")
            #expect(args[notifications + 1] == "$(PLAN_REGEN_WEBHOOK_URL)")
            for (name, key) in [("PLAN_REGEN_WEBHOOK_URL", "url"), ("PLAN_REGEN_WEBHOOK_SECRET", "secret")] {
                let variable = try #require(env.first { $0["name"] as? String == name }, "\(file): \(name)")
                let secret = try dictionary(variable, "valueFrom", "secretKeyRef")
                #expect(secret["name"] as? String == "plan-regen-webhook" && secret["key"] as? String == key)
            }
        }
    }

    /// The shard count is written once (`shards` in sharded/kustomization.yaml); the
    /// CronJob holds a placeholder of 1 (one shard of one) in the three places it goes.
    @Test(.requires(.python3Yaml)) func theShardCountIsWrittenInOnePlace() throws {
        let kustomization = try YAMLDocuments(file: "kubernetes/sharded/kustomization.yaml").single
        let generators = try #require(kustomization["configMapGenerator"] as? [[String: Any]])
        #expect(generators.count == 1)
        #expect(generators.first?["literals"] as? [String] == ["shards=4"])
        // The CronJob itself carries a placeholder count of 1 in each place kustomize fills.
        let cronJob = try YAMLDocuments(file: "kubernetes/sharded/cronjob-sharded.yaml").single
        let job = try dictionary(cronJob, "spec", "jobTemplate", "spec")
        #expect(job["completionMode"] as? String == "Indexed")
        #expect(job["completions"] as? Int == 1 && job["parallelism"] as? Int == 1)
        #expect(try container(of: cronJob)["args"] as? [String] == [
            "run", "--log-format", "json", "--shard", "$(JOB_COMPLETION_INDEX)/1",
            "--metrics-push", "$(METRICS_PUSH_URL)", "--notifications", "$(PLAN_REGEN_WEBHOOK_URL)"])
    }

    /// kustomize (kubectl's) renders the sharded CronJob with the one count in all three
    /// places, and a changed count follows everywhere; each pod's index comes from
    /// JOB_COMPLETION_INDEX, expanded by Kubernetes (no shell in between).
    @Test(.requires(.kubectl, .python3Yaml)) func kustomizeWritesTheShardCountIntoCompletionsParallelismAndTheArgument() throws {
        try withScratchDirectory { folder in
            for file in ["kustomization.yaml", "cronjob-sharded.yaml"] {
                try FileManager.default.copyItem(atPath: repositoryPath("deploy/kubernetes/sharded/\(file)"),
                                                 toPath: "\(folder)/\(file)")
            }
            for shards in [4, 7] {
                if shards != 4 {
                    let edited = try String(contentsOfFile: folder + "/kustomization.yaml", encoding: .utf8)
                        .replacingOccurrences(of: "shards=4", with: "shards=\(shards)")
                    try edited.write(toFile: folder + "/kustomization.yaml", atomically: true, encoding: .utf8)
                }
                let rendered = try Subprocess.check([try RequiredComponent.kubectl.path(), "kustomize", folder])
                let documents = try YAMLDocuments(text: rendered).documents
                #expect(documents.count == 1, "only the CronJob: the ConfigMap is local configuration")
                let cronJob = try #require(documents.first)
                let job = try dictionary(cronJob, "spec", "jobTemplate", "spec")
                #expect(job["completions"] as? Int == shards)
                #expect(job["parallelism"] as? Int == shards)
                let container = try container(of: cronJob)
                let args = try #require(container["args"] as? [String])
                let shard = try #require(args.firstIndex(of: "--shard"))
                #expect(args[shard + 1] == "$(JOB_COMPLETION_INDEX)/\(shards)")
                #expect(container["command"] == nil, "args go to the image's entrypoint, plan-regen")
                let env = try #require(container["env"] as? [[String: Any]])
                #expect(env.contains { $0["name"] as? String == "JOB_COMPLETION_INDEX" })
            }
        }
    }

    private func deployFile(_ path: String) throws -> String {
        try String(contentsOfFile: repositoryPath("deploy/\(path)"), encoding: .utf8)
    }

    private func container(of cronJob: [String: Any]) throws -> [String: Any] {
        let containers = try dictionary(cronJob, "spec", "jobTemplate", "spec", "template", "spec")["containers"]
        return try #require((containers as? [[String: Any]])?.first { $0["name"] as? String == "plan-regen" })
    }

    private func dictionary(_ root: [String: Any], _ path: String...) throws -> [String: Any] {
        var node = root
        for key in path {
            node = try #require(node[key] as? [String: Any], "no \(key) in \(path.joined(separator: "."))")
        }
        return node
    }
}

/// README.md and every Markdown file of docs/, as repository paths.
func documentationFiles() -> [String] {
    let docs = (try? FileManager.default.contentsOfDirectory(atPath: repositoryPath("docs"))) ?? []
    return docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
}

/// YAML documents read by Debian's python3-yaml (`yaml.safe_load_all`), handed over as JSON.
struct YAMLDocuments {
    var documents: [[String: Any]]

    init(file: String) throws {
        try self.init(text: String(contentsOfFile: repositoryPath("deploy/\(file)"), encoding: .utf8))
    }

    init(text: String) throws {
        try self.documents = withScratchDirectory { folder in
            try text.write(toFile: folder + "/in.yaml", atomically: true, encoding: .utf8)
            let json = try Subprocess.check([
                try RequiredComponent.python3Yaml.path(), "-c",
                "import json, sys, yaml; json.dump([d for d in yaml.safe_load_all(open(sys.argv[1])) if d], sys.stdout)",
                folder + "/in.yaml",
            ])
            return try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        }
    }

    var single: [String: Any] {
        get throws {
            try #require(documents.count == 1, "\(documents.count) documents")
            return documents[0]
        }
    }
}
