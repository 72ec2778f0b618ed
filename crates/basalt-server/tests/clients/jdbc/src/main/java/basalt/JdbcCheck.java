package basalt;

import java.math.BigDecimal;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.Date;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.sql.Time;
import java.sql.Timestamp;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

import org.postgresql.PGStatement;

/**
 * pgjdbc against {@code basalt serve}: one PreparedStatement run ten times across the
 * driver's switch to a server-prepared statement with binary results (prepareThreshold 5),
 * every Basalt type as a parameter and a result, DatabaseMetaData (getTables, getColumns,
 * getPrimaryKeys; getIndexInfo is not there yet in Basalt), batches, transactions with
 * savepoints and SQLSTATEs. Run by
 * crates/basalt-server/tests/clients.rs with a JDBC URL, against Basalt and against a live
 * PostgreSQL 15 (where getIndexInfo is checked too); exits 1 at the first
 * difference.
 */
public final class JdbcCheck {
    private static int checks;

    private JdbcCheck() {}

    static void check(String label, Object got, Object expected) {
        checks++;
        if (!Objects.equals(got, expected)) {
            throw new AssertionError(label + ": got " + got + " ("
                    + (got == null ? "null" : got.getClass().getSimpleName()) + "), expected " + expected);
        }
    }

    public static void main(String[] args) throws Exception {
        try (Connection conn = DriverManager.getConnection(args[0])) {
            check("product", conn.getMetaData().getDatabaseProductName(), "PostgreSQL");
            schema(conn);
            preparedAcrossThreshold(conn);
            types(conn);
            String version;
            try (Statement st = conn.createStatement(); ResultSet rs = st.executeQuery("SELECT version()")) {
                rs.next();
                version = rs.getString(1);
            }
            metadata(conn, version.contains("Basalt"));
            batches(conn);
            transactionsAndErrors(conn);
        }
        System.out.println("pgjdbc: all " + checks + " checks passed");
    }

    static void schema(Connection conn) throws SQLException {
        try (Statement st = conn.createStatement()) {
            st.execute("CREATE TABLE authors (id integer PRIMARY KEY, name varchar(80) NOT NULL UNIQUE)");
            st.execute("CREATE TABLE books (id bigint PRIMARY KEY, author_id integer REFERENCES authors (id), "
                    + "title text NOT NULL, price numeric(8,2), published date, in_print boolean DEFAULT true)");
            st.execute("CREATE INDEX books_title ON books (title)");
            st.execute("CREATE TABLE pairs (a integer, b text, c double precision, PRIMARY KEY (b, a))");
            st.execute("INSERT INTO authors VALUES (1, 'Tolkien'), (2, 'Le Guin')");
        }
    }

    /** The same statement ten times: pgjdbc switches to a named server statement (and binary
     * results for the types it receives in binary) at the fifth execution. */
    static void preparedAcrossThreshold(Connection conn) throws SQLException {
        try (PreparedStatement insert = conn.prepareStatement(
                "INSERT INTO books (id, author_id, title, price, published) VALUES (?, ?, ?, ?, ?)")) {
            for (int i = 1; i <= 10; i++) {
                insert.setLong(1, i);
                insert.setInt(2, i % 2 + 1);
                insert.setString(3, "book " + i);
                insert.setBigDecimal(4, new BigDecimal(i).movePointLeft(1).add(new BigDecimal("10.00")));
                insert.setDate(5, Date.valueOf(LocalDate.of(2000, 1, i)));
                check("insert count " + i, insert.executeUpdate(), 1);
            }
            check("insert became server-prepared", insert.unwrap(PGStatement.class).isUseServerPrepare(), true);
        }
        try (PreparedStatement query = conn.prepareStatement(
                "SELECT b.id, b.title, b.price, b.published, b.in_print, a.name "
                        + "FROM books b JOIN authors a ON a.id = b.author_id WHERE b.id = ?")) {
            for (int i = 1; i <= 10; i++) {
                query.setLong(1, i);
                try (ResultSet rs = query.executeQuery()) {
                    check("row " + i, rs.next(), true);
                    check("id " + i, rs.getLong(1), (long) i);
                    check("title " + i, rs.getString(2), "book " + i);
                    check("price " + i, rs.getBigDecimal(3), new BigDecimal(i).movePointLeft(1).add(new BigDecimal("10.00")));
                    check("published " + i, rs.getDate(4).toLocalDate(), LocalDate.of(2000, 1, i));
                    check("in_print " + i, rs.getBoolean(5), true);
                    check("author " + i, rs.getString(6), i % 2 == 0 ? "Tolkien" : "Le Guin");
                    check("one row " + i, rs.next(), false);
                }
                check("server-prepared after " + i, query.unwrap(PGStatement.class).isUseServerPrepare(), i >= 4);
            }
        }
    }

    static void types(Connection conn) throws SQLException {
        try (Statement st = conn.createStatement()) {
            st.execute("CREATE TABLE every_type (id integer PRIMARY KEY, i2 smallint, i4 integer, i8 bigint, "
                    + "f4 real, f8 double precision, n numeric(12,3), t text, v varchar(10), b boolean, "
                    + "by bytea, d date, tm time, ts timestamp, tz timestamptz, iv interval, u uuid, "
                    + "j json, jb jsonb, ai bigint[], at text[])");
        }
        UUID uuid = UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
        OffsetDateTime instant = OffsetDateTime.of(2023, 6, 1, 12, 0, 0, 250_000_000, ZoneOffset.UTC);
        // Run ten times too, so the last runs go through the server-prepared statement.
        for (int run = 1; run <= 10; run++) {
            try (PreparedStatement insert = conn.prepareStatement(
                    "INSERT INTO every_type VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::interval, ?, ?::json, ?::jsonb, ?, ?)")) {
                insert.setInt(1, run);
                insert.setShort(2, (short) 12);
                insert.setInt(3, -2_000_000_000);
                insert.setLong(4, 9_000_000_000_000_000_000L);
                insert.setFloat(5, 1.5f);
                insert.setDouble(6, Math.PI);
                insert.setBigDecimal(7, new BigDecimal("12345.678"));
                insert.setString(8, "héllo\t'world'");
                insert.setString(9, "short");
                insert.setBoolean(10, true);
                insert.setBytes(11, new byte[] {0, 1, (byte) 0xfe, (byte) 0xff});
                insert.setDate(12, Date.valueOf("2024-02-29"));
                insert.setTime(13, Time.valueOf("13:45:06"));
                insert.setTimestamp(14, Timestamp.valueOf(LocalDateTime.of(2023, 12, 31, 23, 59, 59, 123_456_000)));
                insert.setObject(15, instant);
                insert.setString(16, "1 day 02:03:04");
                insert.setObject(17, uuid);
                insert.setString(18, "{\"a\": [1, 2]}");
                insert.setString(19, "{\"b\": true, \"a\": 1}");
                insert.setArray(20, conn.createArrayOf("int8", new Long[] {1L, null, 3L}));
                insert.setArray(21, conn.createArrayOf("text", new String[] {"a b", "c"}));
                check("insert every type", insert.executeUpdate(), 1);
            }
        }
        try (PreparedStatement query = conn.prepareStatement("SELECT * FROM every_type WHERE id = ?")) {
            for (int run = 1; run <= 10; run++) {
                query.setInt(1, run);
                try (ResultSet rs = query.executeQuery()) {
                    check("every type row", rs.next(), true);
                    String at = " (run " + run + ")";
                    check("int2" + at, rs.getShort("i2"), (short) 12);
                    check("int4" + at, rs.getInt("i4"), -2_000_000_000);
                    check("int8" + at, rs.getLong("i8"), 9_000_000_000_000_000_000L);
                    check("float4" + at, rs.getFloat("f4"), 1.5f);
                    check("float8" + at, rs.getDouble("f8"), Math.PI);
                    check("numeric" + at, rs.getBigDecimal("n"), new BigDecimal("12345.678"));
                    check("text" + at, rs.getString("t"), "héllo\t'world'");
                    check("varchar" + at, rs.getString("v"), "short");
                    check("bool" + at, rs.getBoolean("b"), true);
                    check("bytea" + at, Arrays.toString(rs.getBytes("by")), Arrays.toString(new byte[] {0, 1, (byte) 0xfe, (byte) 0xff}));
                    check("date" + at, rs.getDate("d").toString(), "2024-02-29");
                    check("time" + at, rs.getTime("tm").toString(), "13:45:06");
                    check("timestamp" + at, rs.getTimestamp("ts").toLocalDateTime(), LocalDateTime.of(2023, 12, 31, 23, 59, 59, 123_456_000));
                    check("timestamptz" + at, rs.getObject("tz", OffsetDateTime.class).toInstant(), instant.toInstant());
                    check("interval" + at, rs.getString("iv"), "1 day 02:03:04");
                    check("uuid" + at, rs.getObject("u"), uuid);
                    check("json" + at, rs.getString("j"), "{\"a\": [1, 2]}");
                    check("jsonb" + at, rs.getString("jb"), "{\"a\": 1, \"b\": true}");
                    check("int8[]" + at, Arrays.toString((Object[]) rs.getArray("ai").getArray()), "[1, null, 3]");
                    check("text[]" + at, Arrays.toString((Object[]) rs.getArray("at").getArray()), "[a b, c]");
                }
            }
        }
    }

    static List<String> column(ResultSet rs, String name) throws SQLException {
        List<String> values = new ArrayList<>();
        try (rs) {
            while (rs.next()) {
                values.add(rs.getString(name));
            }
        }
        return values;
    }

    static void metadata(Connection conn, boolean basalt) throws SQLException {
        DatabaseMetaData meta = conn.getMetaData();
        check("getTables", column(meta.getTables(null, "public", "%", new String[] {"TABLE"}), "TABLE_NAME"),
                List.of("authors", "books", "every_type", "pairs"));
        List<String> columns = new ArrayList<>();
        try (ResultSet rs = meta.getColumns(null, "public", "books", "%")) {
            while (rs.next()) {
                columns.add(rs.getString("COLUMN_NAME") + " " + rs.getString("TYPE_NAME") + " "
                        + rs.getInt("DATA_TYPE") + " " + rs.getString("IS_NULLABLE"));
            }
        }
        check("getColumns", columns, List.of(
                "id int8 -5 NO", "author_id int4 4 YES", "title text 12 NO",
                "price numeric 2 YES", "published date 91 YES", "in_print bool -7 YES"));
        // getPrimaryKeys reads information_schema._pg_expandarray(conkey)'s fields through
        // a derived table; getBestRowIdentifier the same way.
        List<String> keys = new ArrayList<>();
        try (ResultSet rs = meta.getPrimaryKeys(null, "public", "pairs")) {
            while (rs.next()) {
                keys.add(rs.getString("COLUMN_NAME") + " " + rs.getInt("KEY_SEQ") + " " + rs.getString("PK_NAME"));
            }
        }
        check("getPrimaryKeys", keys, List.of("b 1 pairs_pkey", "a 2 pairs_pkey"));
        check("getPrimaryKeys of books", column(meta.getPrimaryKeys(null, "public", "books"), "COLUMN_NAME"), List.of("id"));
        if (!basalt) {
            // What PostgreSQL answers, checked when the check runs against it; Basalt's
            // answer is to be this once it has what the driver's query needs (below).
            List<String> indexes = new ArrayList<>();
            try (ResultSet rs = meta.getIndexInfo(null, "public", "books", false, false)) {
                while (rs.next()) {
                    indexes.add(rs.getString("INDEX_NAME") + " " + rs.getString("COLUMN_NAME") + " " + rs.getBoolean("NON_UNIQUE"));
                }
            }
            indexes.sort(null);
            check("getIndexInfo", indexes, List.of("books_pkey id false", "books_title title true"));
            return;
        }
        // getIndexInfo subscripts pg_index.indoption (an int2vector, 0-based) by position;
        // Basalt's indoption is its text form (docs/server.md, "Not yet"). When it works,
        // this becomes the check above.
        try {
            meta.getIndexInfo(null, "public", "books", false, false).close();
            throw new AssertionError("getIndexInfo works now: check its rows as on PostgreSQL");
        } catch (SQLException e) {
            check("getIndexInfo (not yet)", e.getSQLState(), "42804");
        }
    }

    static void batches(Connection conn) throws SQLException {
        try (PreparedStatement insert = conn.prepareStatement("INSERT INTO pairs VALUES (?, ?, ?)")) {
            for (int i = 1; i <= 100; i++) {
                insert.setInt(1, i);
                insert.setString(2, "k" + (i % 10));
                insert.setDouble(3, i / 4.0);
                insert.addBatch();
            }
            int[] counts = insert.executeBatch();
            check("batch counts", counts.length, 100);
            check("batch count values", Arrays.stream(counts).sum(), 100);
        }
        try (Statement st = conn.createStatement()) {
            st.addBatch("UPDATE pairs SET c = c * 2 WHERE a <= 10");
            st.addBatch("DELETE FROM pairs WHERE a > 90");
            check("statement batch", Arrays.toString(st.executeBatch()), "[10, 10]");
            try (ResultSet rs = st.executeQuery("SELECT count(*), sum(c) FROM pairs")) {
                rs.next();
                check("after batches", rs.getLong(1) + " " + rs.getDouble(2), "90 1037.5");
            }
        }
        // A batch with a failing row: BatchUpdateException carrying the SQLSTATE.
        try (PreparedStatement insert = conn.prepareStatement("INSERT INTO pairs VALUES (?, ?, ?)")) {
            insert.setInt(1, 1000);
            insert.setString(2, "new");
            insert.setDouble(3, 0);
            insert.addBatch();
            insert.setInt(1, 1);
            insert.setString(2, "k1");
            insert.setDouble(3, 0);
            insert.addBatch();
            insert.executeBatch();
            throw new AssertionError("duplicate key in a batch accepted");
        } catch (BatchUpdateException e) {
            check("batch error SQLSTATE", e.getSQLState(), "23505");
        }
    }

    static void transactionsAndErrors(Connection conn) throws SQLException {
        conn.setAutoCommit(false);
        try (Statement st = conn.createStatement()) {
            st.executeUpdate("INSERT INTO authors VALUES (3, 'Pratchett')");
            conn.rollback();
            st.executeUpdate("INSERT INTO authors VALUES (4, 'Jansson')");
            Savepoint savepoint = conn.setSavepoint("sp");
            st.executeUpdate("INSERT INTO authors VALUES (5, 'Lindgren')");
            try {
                st.executeUpdate("INSERT INTO authors VALUES (6, 'Jansson')");
                throw new AssertionError("duplicate name accepted");
            } catch (SQLException e) {
                check("unique violation", e.getSQLState(), "23505");
            }
            try {
                st.executeQuery("SELECT 1");
                throw new AssertionError("statement ran in a failed transaction");
            } catch (SQLException e) {
                check("failed transaction", e.getSQLState(), "25P02");
            }
            conn.rollback(savepoint);
            conn.commit();
            check("after commit", column(st.executeQuery("SELECT name FROM authors ORDER BY id"), "name"),
                    List.of("Tolkien", "Le Guin", "Jansson"));
            conn.commit();
        }
        conn.setAutoCommit(true);
        String[][] errors = {
            {"SELECT * FROM no_such_table", "42P01"},
            {"SELECT 1/0", "22012"},
            {"SELEC 1", "42601"},
            {"INSERT INTO books (id, title) VALUES (99, NULL)", "23502"},
            {"INSERT INTO books (id, author_id, title) VALUES (99, 42, 'x')", "23503"},
        };
        for (String[] error : errors) {
            try (PreparedStatement st = conn.prepareStatement(error[0])) {
                st.execute();
                throw new AssertionError(error[0] + " succeeded");
            } catch (SQLException e) {
                check(error[0], e.getSQLState(), error[1]);
            }
        }
    }
}
