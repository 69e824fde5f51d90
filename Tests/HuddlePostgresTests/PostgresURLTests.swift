import HuddlePostgres
import Testing

@Suite struct PostgresURLTests {
    @Test(arguments: [
        ("postgres://huddle:secret@db.example.com:6543/notifications?sslmode=require",
         PostgresURL(user: "huddle", password: "secret", host: "db.example.com", port: 6543, database: "notifications", sslMode: .require)),
        ("postgresql://huddle@localhost/huddle",
         PostgresURL(user: "huddle", host: "localhost", database: "huddle", sslMode: .prefer)),
        ("POSTGRES://u:p%40ss%2Fw0rd@127.0.0.1:5433/db?sslmode=disable",
         PostgresURL(user: "u", password: "p@ss/w0rd", host: "127.0.0.1", port: 5433, database: "db", sslMode: .disable)),
        ("postgres://u:a@b@[::1]:5432/db%20name?sslmode=verify-full",
         PostgresURL(user: "u", password: "a@b", host: "::1", database: "db name", sslMode: .verifyFull)),
        ("postgres://u:@h/d", PostgresURL(user: "u", password: "", host: "h", database: "d")),
    ])
    func parses(_ text: String, _ expected: PostgresURL) throws {
        #expect(try PostgresURL(text) == expected)
    }

    @Test(arguments: [
        ("mysql://u@h/d", PostgresURLError.Code.scheme, "the scheme is \"mysql\", not postgres or postgresql"),
        ("huddle.sqlite", .scheme, "it does not start with postgres:// or postgresql://"),
        ("postgres://h/d", .user, "it names no user (USER@ before the host)"),
        ("postgres://:secret@h/d", .user, "the user name is empty"),
        ("postgres://u@/d", .host, "it names no host"),
        ("postgres://u@h:54x2/d", .port, "the port \"54x2\" is not a number from 1 to 65535"),
        ("postgres://u@h:70000/d", .port, "the port \"70000\" is not a number from 1 to 65535"),
        ("postgres://u@h:5432", .database, "it names no database (/DATABASE after the host)"),
        ("postgres://u@h/", .database, "it names no database (/DATABASE after the host)"),
        ("postgres://u@h/d?sslmode=allow", .parameter, "sslmode \"allow\" is not one of disable, prefer, require, verify-full"),
        ("postgres://u@h/d?connect_timeout=3", .parameter, "unknown parameter \"connect_timeout\" (only sslmode is understood)"),
        ("postgres://u@[::1/d", .host, "the IPv6 address has no closing ]"),
        ("postgres://u:p%zz@h/d", .encoding, "the password has a malformed %-escape"),
    ])
    func refuses(_ text: String, _ code: PostgresURLError.Code, _ message: String) {
        #expect {
            _ = try PostgresURL(text)
        } throws: { error in
            guard let error = error as? PostgresURLError else { return false }
            return error.code == code && error.message == message
        }
    }

    /// Errors and logs show the URL without its password.
    @Test func thePasswordIsNeverShown() throws {
        let url = try PostgresURL("postgres://huddle:s3cret@db:5432/huddle")
        #expect("\(url)" == "postgres://huddle:***@db:5432/huddle?sslmode=prefer")
        #expect(throws: PostgresURLError.self) { try PostgresURL("postgres://huddle:s3cret@db:5432/huddle?sslmode=nope") }
        do {
            _ = try PostgresURL("postgres://huddle:s3cret@db:99999/huddle")
            Issue.record("an out-of-range port was accepted")
        } catch {
            #expect(!"\(error)".contains("s3cret"))
            #expect("\(error)".hasPrefix("invalid PostgreSQL URL postgres://huddle:***@db:99999/huddle: the port \"99999\""))
        }
    }

    @Test func knowsWhichTextsNameIt() {
        #expect(PostgresURL.names("postgres://u@h/d"))
        #expect(PostgresURL.names("PostgreSQL://u@h/d"))
        #expect(!PostgresURL.names("huddle.sqlite"))
        #expect(!PostgresURL.names("memory"))
    }
}
