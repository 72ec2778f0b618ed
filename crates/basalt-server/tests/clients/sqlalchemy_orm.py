"""SQLAlchemy 2's ORM against `basalt serve`: a declarative model with a one-to-many
relationship, `create_all`, a session adding, committing, querying (joins, eager loading,
aggregates), updating and deleting (with the relationship's delete cascade), a rolled-back
session, an IntegrityError with its SQLSTATE, then `drop_all`. Run by tests/clients.rs with
a SQLAlchemy URL (`postgresql+psycopg://...`, or `postgresql+asyncpg://...`, which runs the
same program through SQLAlchemy's asyncio extension), against Basalt and against a live
PostgreSQL 15; exits non-zero on the first difference."""

import asyncio
import datetime as dt
import decimal
import sys

from sqlalchemy import (
    ForeignKey,
    Numeric,
    String,
    create_engine,
    func,
    select,
    text,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import (
    DeclarativeBase,
    Mapped,
    Session,
    mapped_column,
    relationship,
    selectinload,
)

URL = sys.argv[1]
D = decimal.Decimal


class Base(DeclarativeBase):
    pass


class Author(Base):
    __tablename__ = "authors"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(80), unique=True)
    born: Mapped[dt.date | None]
    books: Mapped[list["Book"]] = relationship(
        back_populates="author", cascade="all, delete-orphan", order_by="Book.id"
    )


class Book(Base):
    __tablename__ = "books"
    id: Mapped[int] = mapped_column(primary_key=True)
    title: Mapped[str] = mapped_column(String(200))
    price: Mapped[D] = mapped_column(Numeric(8, 2))
    published: Mapped[dt.datetime | None]
    in_print: Mapped[bool] = mapped_column(default=True)
    author_id: Mapped[int] = mapped_column(ForeignKey("authors.id"))
    author: Mapped[Author] = relationship(back_populates="books")


def check(label, got, expected):
    assert got == expected, f"{label}: got {got!r}, expected {expected!r}"


def program(session_factory, engine_connect):
    """The ORM checks, on a synchronous Session (the asyncio run wraps them in run_sync)."""
    with session_factory() as session:
        tolkien = Author(name="Tolkien", born=dt.date(1892, 1, 3))
        tolkien.books = [
            Book(title="The Hobbit", price=D("12.50"), published=dt.datetime(1937, 9, 21)),
            Book(title="The Silmarillion", price=D("20.00"), in_print=False),
        ]
        le_guin = Author(name="Le Guin", books=[Book(title="Earthsea", price=D("9.99"))])
        session.add_all([tolkien, le_guin])
        session.commit()
        check("ids assigned", sorted(a.id for a in (tolkien, le_guin)), [1, 2])
        check("server defaults read back", tolkien.books[0].in_print, True)

    with session_factory() as session:
        # A join, a filter with a bound parameter, an ORDER BY.
        rows = session.execute(
            select(Author.name, Book.title)
            .join(Book.author)
            .where(Book.price > D("10"))
            .order_by(Book.price)
        ).all()
        check("join", [tuple(r) for r in rows], [("Tolkien", "The Hobbit"), ("Tolkien", "The Silmarillion")])
        # Eager loading with selectinload (an IN query with a list parameter).
        authors = session.scalars(select(Author).options(selectinload(Author.books)).order_by(Author.name)).all()
        check("selectinload", [(a.name, [b.title for b in a.books]) for a in authors],
              [("Le Guin", ["Earthsea"]), ("Tolkien", ["The Hobbit", "The Silmarillion"])])
        # Aggregates and GROUP BY.
        totals = session.execute(
            select(Author.name, func.count(Book.id), func.sum(Book.price))
            .join(Book)
            .group_by(Author.name)
            .order_by(Author.name)
        ).all()
        check("aggregates", [tuple(r) for r in totals], [("Le Guin", 1, D("9.99")), ("Tolkien", 2, D("32.50"))])
        # Lazy loading through the relationship, and session.get.
        hobbit = session.scalars(select(Book).where(Book.title == "The Hobbit")).one()
        check("lazy load", hobbit.author.name, "Tolkien")
        check("get", session.get(Author, 2).name, "Le Guin")
        check("published", hobbit.published, dt.datetime(1937, 9, 21))

    with session_factory() as session:
        # Unit-of-work update, a bulk UPDATE statement, then delete with cascade.
        hobbit = session.scalars(select(Book).where(Book.title == "The Hobbit")).one()
        hobbit.price = D("14.00")
        session.execute(update(Book).where(Book.in_print.is_(False)).values(price=D("1.00")))
        session.commit()
        check("updated", session.scalars(select(Book.price).order_by(Book.id)).all(), [D("14.00"), D("1.00"), D("9.99")])
        session.delete(session.get(Author, 1))
        session.commit()
        check("cascade delete", session.scalars(select(Book.title)).all(), ["Earthsea"])

    with session_factory() as session:
        # A rolled-back session leaves nothing behind.
        session.add(Author(name="Temporary"))
        session.flush()
        session.rollback()
        check("rollback", session.scalar(select(func.count()).select_from(Author)), 1)
        # A unique violation surfaces as IntegrityError with PostgreSQL's SQLSTATE.
        session.add(Author(name="Le Guin"))
        try:
            session.commit()
            raise AssertionError("duplicate name accepted")
        except IntegrityError as e:
            check("unique violation", getattr(e.orig, "sqlstate", None) or e.orig.pgcode, "23505")
            session.rollback()

    with engine_connect() as connection:
        check("text()", connection.execute(text("SELECT :a + 1"), {"a": 41}).scalar(), 42)


def run_sync():
    engine = create_engine(URL)
    Base.metadata.drop_all(engine)
    Base.metadata.create_all(engine)
    try:
        program(lambda: Session(engine), engine.connect)
    finally:
        Base.metadata.drop_all(engine)
        engine.dispose()


async def run_async():
    from sqlalchemy.ext.asyncio import create_async_engine

    engine = create_async_engine(URL)
    async with engine.begin() as connection:
        await connection.run_sync(Base.metadata.drop_all)
        await connection.run_sync(Base.metadata.create_all)
    try:
        # The ORM program itself runs as one synchronous function inside the async
        # connection (SQLAlchemy's greenlet bridge): every statement goes through asyncpg.
        async with engine.connect() as connection:
            def with_connection(sync_connection):
                def session_factory():
                    return Session(bind=sync_connection, join_transaction_mode="create_savepoint")

                class Reuse:
                    def __enter__(self):
                        return sync_connection

                    def __exit__(self, *exc):
                        return False

                program(session_factory, Reuse)

            await connection.run_sync(with_connection)
    finally:
        async with engine.begin() as connection:
            await connection.run_sync(Base.metadata.drop_all)
        await engine.dispose()


if "+asyncpg" in URL:
    asyncio.run(run_async())
else:
    run_sync()
print(f"SQLAlchemy ORM ({URL.split(':', 1)[0]}): all checks passed")
