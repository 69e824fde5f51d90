import HuddleCore
import Logging
import PostgresNIO

/// How a write transaction ends: a write that turns out to change nothing rolls back, so that the change
/// number it took is given back and the device's numbers stay without gaps.
enum TransactionEnd<Value: Sendable>: Sendable {
    case commit(Value)
    case rollBack(Value)
}

extension PostgresClient {
    /// Runs `body` in a read-write transaction on a connection of the pool; see
    /// ``PostgresNIO/PostgresConnection/write(logger:_:)``.
    func write<Value: Sendable>(
        logger: Logger, _ body: @Sendable (PostgresConnection) async throws -> TransactionEnd<Value>
    ) async throws -> Value {
        do {
            return try await withConnection { connection in try await connection.write(logger: logger, body) }
        } catch {
            throw StoreError.fromPostgres(error)
        }
    }

    /// Runs `body` in a read-only transaction on a connection of the pool; see
    /// ``PostgresNIO/PostgresConnection/read(logger:_:)``.
    func read<Value: Sendable>(logger: Logger, _ body: @Sendable (PostgresConnection) async throws -> Value) async throws -> Value {
        do {
            return try await withConnection { connection in try await connection.read(logger: logger, body) }
        } catch {
            throw StoreError.fromPostgres(error)
        }
    }

    /// Runs one statement outside an explicit transaction and returns its rows, read by `transform`.
    func rows<Value>(_ query: PostgresQuery, logger: Logger, _ transform: (PostgresRow) throws -> Value) async throws -> [Value] {
        do {
            return try await self.query(query, logger: logger).collect().map(transform)
        } catch {
            throw StoreError.fromPostgres(error)
        }
    }

    /// Runs a prepared statement outside an explicit transaction and returns its rows, as it decodes them.
    func rows<Statement: PostgresPreparedStatement>(_ statement: Statement, logger: Logger) async throws -> [Statement.Row] {
        do {
            var rows: [Statement.Row] = []
            for try await row in try await execute(statement, logger: logger) { rows.append(row) }
            return rows
        } catch {
            throw StoreError.fromPostgres(error)
        }
    }
}

extension PostgresConnection {
    /// Runs `body` in a read-write transaction (READ COMMITTED: writers serialize on the rows they lock,
    /// the device row first).
    ///
    /// postgres-nio's own `withTransaction` wraps every error in a `PostgresTransactionError`; this one
    /// lets the body's ``StoreError`` through as it is, and maps the driver's errors to ``StoreError``.
    /// - Returns: what the body returned, once committed or rolled back as it asked.
    func write<Value: Sendable>(
        logger: Logger, _ body: @Sendable (PostgresConnection) async throws -> TransactionEnd<Value>
    ) async throws -> Value {
        try await transaction(begin: "BEGIN", logger: logger, body)
    }

    /// Runs `body` in a read-only transaction that sees one snapshot of the database for all its queries
    /// (REPEATABLE READ), so that a device's rows agree with its change number.
    func read<Value: Sendable>(logger: Logger, _ body: @Sendable (PostgresConnection) async throws -> Value) async throws -> Value {
        try await transaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger) { connection in
            .commit(try await body(connection))
        }
    }

    private func transaction<Value: Sendable>(
        begin: PostgresQuery, logger: Logger, _ body: @Sendable (PostgresConnection) async throws -> TransactionEnd<Value>
    ) async throws -> Value {
        do {
            try await query(begin, logger: logger)
            let end: TransactionEnd<Value>
            do {
                end = try await body(self)
            } catch {
                do {
                    try await query("ROLLBACK", logger: logger)
                } catch {
                    // A connection that cannot roll back must not go back to the pool mid-transaction.
                    try? await close()
                }
                throw error
            }
            switch end {
            case .commit(let value):
                try await query("COMMIT", logger: logger)
                return value
            case .rollBack(let value):
                try await query("ROLLBACK", logger: logger)
                return value
            }
        } catch {
            throw StoreError.fromPostgres(error)
        }
    }

    /// Runs one statement of a transaction and returns its rows.
    func rows(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        try await self.query(query, logger: logger).collect()
    }

    /// Runs one statement of a transaction and returns its first row, if any.
    func firstRow(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRow? {
        try await rows(query, logger: logger).first
    }

    /// Runs one statement of a transaction, ignoring whatever rows it returns.
    func run(_ query: PostgresQuery, logger: Logger) async throws {
        _ = try await rows(query, logger: logger)
    }
}
