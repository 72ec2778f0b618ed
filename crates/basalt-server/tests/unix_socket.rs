//! The optional Unix socket: named as PostgreSQL names its own, reached by tokio-postgres
//! and psql through the directory, removed when the server stops.

use std::process::Command;

use basalt::Database;
use basalt_server::Server;
use tokio_postgres::NoTls;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_connect_through_the_unix_socket() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let db = Database::open(dir.path().join("db.basalt")).expect("open");
    let server = Server::bind(db, "127.0.0.1:0".parse().expect("address"))
        .await
        .expect("bind")
        .with_unix_socket(dir.path())
        .await
        .expect("unix socket");
    let port = server.local_addr().expect("address").port();
    let socket = server.unix_socket().expect("socket path").to_owned();
    assert_eq!(socket, dir.path().join(format!(".s.PGSQL.{port}")));

    let running = tokio::spawn(server.run());

    let mut config = tokio_postgres::Config::new();
    config.host_path(dir.path()).port(port).user("local");
    let (client, connection) = config
        .connect(NoTls)
        .await
        .expect("connect over the socket");
    tokio::spawn(connection);
    client
        .batch_execute("CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (20), (22)")
        .await
        .expect("statements");
    let row = client
        .query_one("SELECT sum(a) FROM t", &[])
        .await
        .expect("query");
    assert_eq!(row.get::<_, i64>(0), 42);

    if Command::new("psql").arg("--version").output().is_ok() {
        let directory = dir.path().to_owned();
        let output = tokio::task::spawn_blocking(move || {
            Command::new("psql")
                .arg("-X")
                .arg("-h")
                .arg(&directory)
                .args([
                    "-p",
                    &port.to_string(),
                    "-A",
                    "-t",
                    "-c",
                    "SELECT count(*) FROM t",
                ])
                .output()
                .expect("psql")
        })
        .await
        .expect("psql task");
        assert!(output.status.success(), "{output:?}");
        assert_eq!(String::from_utf8_lossy(&output.stdout), "2\n");
    } else {
        println!("note: psql is not on PATH; skipping its part of the Unix socket test");
    }

    running.abort();
    let _ = running.await;
    assert!(
        !socket.exists(),
        "the socket file is removed when the server stops"
    );
}
