//! Tests of the catalog entry format: round trips, entries of older versions, damage.

use super::*;

fn sample_table() -> TableDef {
    TableDef {
        name: "Users".into(),
        columns: vec![
            ColumnDef {
                name: "id".into(),
                data_type: DataType::Integer,
                declared_type: "INTEGER".into(),
                not_null: true,
                default: None,
                generated: None,
                slot: 0,
            },
            ColumnDef {
                name: "email".into(),
                data_type: DataType::Text(Some(80)),
                declared_type: "VARCHAR(80)".into(),
                not_null: false,
                default: Some("'x'".into()),
                generated: Some("upper(name)".into()),
                slot: 2,
            },
        ],
        root: 7,
        row_id_column: Some(0),
        primary_key: vec![0],
        checks: vec!["length(email) > 3".into()],
        foreign_keys: vec![ForeignKeyDef {
            name: "users_email_fkey".into(),
            columns: vec![1],
            referenced_table: "emails".into(),
            referenced_columns: vec!["address".into()],
            on_delete: ReferentialAction::Cascade,
            on_update: ReferentialAction::SetNull,
        }],
        slot_count: 3,
    }
}

#[test]
fn entries_round_trip() {
    let objects = [
        SchemaObject::Table(sample_table()),
        SchemaObject::Index(IndexDef {
            name: "users_email".into(),
            table: "Users".into(),
            columns: vec![(1, KeyOrder::DESC), (0, KeyOrder::ASC)],
            unique: true,
            method: IndexMethod::BTree,
            root: 9,
            implicit: false,
            options: vec![
                ("fillfactor".into(), "70".into()),
                ("deduplicate_items".into(), "false".into()),
            ],
        }),
        SchemaObject::View(ViewDef {
            name: "v".into(),
            column_names: vec!["a".into()],
            query: "SELECT 1".into(),
        }),
        SchemaObject::Trigger(TriggerDef {
            name: "audit".into(),
            table: "Users".into(),
            timing: TriggerTiming::After,
            event: TriggerEvent::Update(vec!["email".into()]),
            condition: Some("new.email <> old.email".into()),
            body: vec!["INSERT INTO log VALUES (new.id)".into(), "SELECT 1".into()],
        }),
        SchemaObject::Sequence(SequenceDef {
            name: "orders_id_seq".into(),
            increment: -2,
            min_value: i64::MIN,
            max_value: -1,
            start: -1,
            cycle: true,
            root: 12,
            owner: Some("orders".into()),
            identity: Some(("id".into(), true)),
            autoincrement: false,
        }),
    ];
    for object in objects {
        assert_eq!(decode_entry(&encode_entry(&object)).unwrap(), object);
    }
}

#[test]
fn version_1_foreign_keys_get_default_names() {
    let table = sample_table();
    let version_2 = encode_entry_as(&SchemaObject::Table(table.clone()), 2);
    let mut name_field = (table.foreign_keys[0].name.len() as u32)
        .to_le_bytes()
        .to_vec();
    name_field.extend_from_slice(table.foreign_keys[0].name.as_bytes());
    let at = version_2
        .windows(name_field.len())
        .position(|window| window == name_field.as_slice())
        .unwrap();
    let mut version_1 = version_2.clone();
    version_1.drain(at..at + name_field.len());
    version_1[0] = 1;
    let SchemaObject::Table(decoded) = decode_entry(&version_1).unwrap() else {
        panic!("not a table");
    };
    assert_eq!(decoded.foreign_keys[0].name, "Users_email_fkey");
    assert_eq!(decoded.foreign_keys[0].referenced_table, "emails");
}

#[test]
fn version_2_columns_have_no_generation_expression() {
    let table = sample_table();
    let version_2 = encode_entry_as(&SchemaObject::Table(table.clone()), 2);
    let SchemaObject::Table(decoded) = decode_entry(&version_2).unwrap() else {
        panic!("not a table");
    };
    assert_eq!(decoded.columns[1].generated, None);
    assert_eq!(decoded.columns[1].default, table.columns[1].default);
    assert_eq!(decoded.columns[1].slot, 2);
}

/// Before version 5 a column kept its VARCHAR length as a presence byte and a u32; those
/// entries decode to the same modifier, and version 5 keeps it too.
#[test]
fn version_4_lengths_become_modifiers() {
    let table = sample_table();
    // (Version 1 entries differ in their foreign keys; `version_1_foreign_keys...` builds one.)
    for version in [2, 3, 4, 5] {
        let entry = encode_entry_as(&SchemaObject::Table(table.clone()), version);
        let SchemaObject::Table(decoded) = decode_entry(&entry).unwrap() else {
            panic!("not a table");
        };
        assert_eq!(
            decoded.columns[1].data_type.modifier(),
            Some(TypeModifier::Length(80)),
            "version {version}"
        );
        assert_eq!(decoded.columns[1].max_length(), Some(80));
        assert_eq!(
            decoded.columns[0].data_type.modifier(),
            None,
            "version {version}"
        );
    }
    // Version 5 spends 9 bytes per column on the modifier where version 4 spent 5.
    let version_4 = encode_entry_as(&SchemaObject::Table(table.clone()), 4);
    let version_5 = encode_entry_as(&SchemaObject::Table(table.clone()), 5);
    assert_eq!(version_5.len(), version_4.len() + 4 * table.columns.len());
    // An unknown modifier tag is damage, not a guess.
    let mut damaged = version_5.clone();
    let declared = table.columns[0].declared_type.as_bytes();
    let at = damaged
        .windows(declared.len().max(1))
        .position(|window| window == declared)
        .unwrap()
        + declared.len();
    damaged[at] = 0xEE;
    assert!(decode_entry(&damaged).is_err());
}

#[test]
fn version_3_indexes_have_no_options() {
    let index = IndexDef {
        name: "users_email".into(),
        table: "Users".into(),
        columns: vec![(1, KeyOrder::DESC)],
        unique: false,
        method: IndexMethod::BTree,
        root: 9,
        implicit: true,
        options: vec![("fillfactor".into(), "70".into())],
    };
    let version_3 = encode_entry_as(&SchemaObject::Index(index.clone()), 3);
    let version_4 = encode_entry_as(&SchemaObject::Index(index.clone()), 4);
    // Version 4 adds the option list (count, then name and value strings) at the end.
    let options_bytes = 4 + (4 + "fillfactor".len()) + (4 + "70".len());
    assert_eq!(version_3.len() + options_bytes, version_4.len());
    assert_eq!(version_3[0], 3);
    let SchemaObject::Index(decoded) = decode_entry(&version_3).unwrap() else {
        panic!("not an index");
    };
    assert_eq!(decoded.options, Vec::new());
    assert_eq!(
        decoded,
        IndexDef {
            options: Vec::new(),
            ..index
        }
    );
    // A version 3 entry followed by an option list is damaged, not silently read.
    let mut padded = version_3.clone();
    padded.extend_from_slice(&0u32.to_le_bytes());
    assert!(decode_entry(&padded).is_err());
}

#[test]
fn damaged_index_entries_are_errors() {
    let bytes = encode_entry(&SchemaObject::Index(IndexDef {
        name: "i".into(),
        table: "t".into(),
        columns: vec![(0, KeyOrder::ASC)],
        unique: true,
        method: IndexMethod::BTree,
        root: 3,
        implicit: false,
        options: vec![("fillfactor".into(), "90".into())],
    }));
    for cut in 0..bytes.len() {
        assert!(decode_entry(&bytes[..cut]).is_err());
    }
}

#[test]
fn damaged_entries_are_errors() {
    let bytes = encode_entry(&SchemaObject::Table(sample_table()));
    for cut in 0..bytes.len() {
        assert!(decode_entry(&bytes[..cut]).is_err());
    }
    let mut state = 1u64;
    for _ in 0..2000 {
        let mut damaged = bytes.clone();
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let at = (state >> 33) as usize % damaged.len();
        damaged[at] = (state >> 17) as u8;
        let _ = decode_entry(&damaged);
    }
}
