import Foundation
import Postgres
import Testing

/// TLS for real: a throwaway server with `ssl=on` and a certificate from a test CA made
/// with openssl, reached over TCP with a password (scram-sha-256). `verify-full` with
/// `sslrootcert` pointing at the CA works; without `sslrootcert` the job fails saying what
/// to set; `require` works without a CA; the password is in no log line.
@Suite struct TLSTests {
    static let password = "Tls-S3cret_pw"

    @Test(.requires(.openssl)) func verifyFullWithTheCAWorksAndWithoutItTheJobSaysWhatToSet() throws {
        let cluster = try ThrowawayCluster()
        let tls = try Self.makeCertificates(in: cluster.directory.appendingPathComponent("tls"))
        let admin = try cluster.connect()
        for setting in ["listen_addresses = '127.0.0.1'", "ssl = on",
                        "ssl_cert_file = '\(tls.serverCertificate)'", "ssl_key_file = '\(tls.serverKey)'"] {
            try admin.execute(SQLQuery(stringLiteral: "ALTER SYSTEM SET \(setting)"), purpose: "enabling TLS")
        }
        try admin.execute(SQLQuery(stringLiteral: "ALTER ROLE postgres PASSWORD '\(Self.password)'"), purpose: "test")
        // First, ahead of the cluster's `host … reject` lines (pg_hba.conf: first match wins).
        let hba = cluster.directory.appendingPathComponent("data/pg_hba.conf")
        let rules = try String(contentsOf: hba, encoding: .utf8)
        try Data(("hostssl all all 127.0.0.1/32 scram-sha-256\n" + rules).utf8).write(to: hba)
        try cluster.stopServer()
        try cluster.start()

        let base = "postgresql://postgres:\(Self.password)@localhost:\(cluster.port)/postgres"
        let verifyFull = "\(base)?sslmode=verify-full&sslrootcert=\(tls.caCertificate)"
        // No ~/.postgresql/root.crt to fall back on.
        let home = ["HOME": cluster.directory.path]
        var outputs: [String] = []

        // The connection really is TLS, verified against the test CA.
        let direct = try PostgresConnection(conninfo: verifyFull)
        #expect(try direct.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", purpose: "test")
            .singleRow().bool("ssl"))

        let migrate = try JobProcess.run(["migrate", "--with-reference-schema", "--database-url", verifyFull,
                                          "--log-level", "trace"], environment: home)
        #expect(migrate.status == 0, "\(migrate.stderr)")
        let run = try JobProcess.run(["run", "--database-url", verifyFull, "--as-of", "2026-03-01T12:00:00Z",
                                      "--log-level", "trace"], environment: home)
        #expect(run.status == 0, "\(run.stderr)")
        outputs += [migrate.stderr, run.stderr]

        // verify-full without sslrootcert: libpq looks for ~/.postgresql/root.crt; the
        // job's one line says what to set.
        for (arguments, environment) in [
            (["--database-url", "\(base)?sslmode=verify-full"], home),
            (["--database-url", base], home.merging(["PGSSLMODE": "verify-full"]) { $1 }),
        ] {
            let refused = try JobProcess.run(["run"] + arguments, environment: environment)
            #expect(refused.status == 1, "\(refused.stderr)")
            #expect(refused.criticalLines.count == 1, "\(refused.stderr)")
            #expect(refused.stderr.contains("root certificate file"), "\(refused.stderr)")
            #expect(refused.stderr.contains("add sslrootcert=FILE to DATABASE_URL (or set PGSSLROOTCERT)"),
                    "\(refused.stderr)")
            outputs.append(refused.stderr)
        }

        // require: encrypted without checking the certificate; the password from PGPASSWORD.
        let require = try JobProcess.run(
            ["status", "--database-url", "host=localhost port=\(cluster.port) dbname=postgres user=postgres sslmode=require",
             "--log-level", "trace"],
            environment: home.merging(["PGPASSWORD": Self.password]) { $1 })
        #expect(require.status == 0, "\(require.stderr)")
        outputs += [require.stderr, require.stdout]

        for output in outputs {
            #expect(!output.contains(Self.password), "the password reached a log line: \(output)")
        }
    }

    struct Certificates {
        var caCertificate: String
        var serverCertificate: String
        var serverKey: String
    }

    /// A test CA and a server certificate it signed for localhost and 127.0.0.1, owned by
    /// the cluster directory's owner (the server refuses a key others can read).
    static func makeCertificates(in folder: URL) throws -> Certificates {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let openssl = try RequiredComponent.openssl.path()
        let path = { (name: String) in folder.appendingPathComponent(name).path }
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(toFile: path("san.ext"), atomically: true, encoding: .utf8)
        try Subprocess.check([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                              "-keyout", path("ca.key"), "-out", path("ca.crt"), "-subj", "/CN=plan-regen test CA"])
        try Subprocess.check([openssl, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", path("server.key"),
                              "-out", path("server.csr"), "-subj", "/CN=localhost"])
        try Subprocess.check([openssl, "x509", "-req", "-in", path("server.csr"), "-CA", path("ca.crt"),
                              "-CAkey", path("ca.key"), "-CAcreateserial", "-days", "2",
                              "-extfile", path("san.ext"), "-out", path("server.crt")])
        let owner = try FileManager.default.attributesOfItem(atPath: folder.deletingLastPathComponent().path)
        for name in ["tls", "tls/server.crt", "tls/server.key", "tls/ca.crt"] {
            let file = folder.deletingLastPathComponent().appendingPathComponent(name).path
            try FileManager.default.setAttributes(
                [.ownerAccountID: owner[.ownerAccountID]!, .groupOwnerAccountID: owner[.groupOwnerAccountID]!,
                 .posixPermissions: name.hasSuffix(".key") ? 0o600 : 0o755], ofItemAtPath: file)
        }
        return Certificates(caCertificate: path("ca.crt"), serverCertificate: path("server.crt"),
                            serverKey: path("server.key"))
    }
}
