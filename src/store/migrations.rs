//! The schema's migrations, in the order databases in use applied them.

use rusqlite_migration::{Migrations, M};

/// The schema's migrations, applied by position: `rusqlite_migration`
/// records in the database (`user_version`) how many of this list it has
/// applied, not which files. So the list must never be reordered, nor an
/// entry removed or inserted before the end: an existing database would
/// skip a migration or run one twice. New migrations are only appended
/// (whatever their file number; the numbers are names, not the order).
/// `tests::migrations_keep_their_pinned_order` pins the order.
pub(super) fn migrations() -> Migrations<'static> {
    Migrations::new(vec![
        M::up(include_str!("../../migrations/0001_initial.sql")),
        M::up(include_str!("../../migrations/0002_observers.sql")),
        M::up(include_str!("../../migrations/0003_pending_moves.sql")),
        M::up(include_str!("../../migrations/0004_player_settings.sql")),
        M::up(include_str!("../../migrations/0005_board_counters.sql")),
        M::up(include_str!("../../migrations/0006_board_mail.sql")),
        M::up(include_str!("../../migrations/0007_seeks.sql")),
        M::up(include_str!("../../migrations/0010_computer.sql")),
        M::up(include_str!("../../migrations/0012_inbound_failures.sql")),
        M::up(include_str!("../../migrations/0014_board_resume_point.sql")),
        M::up(include_str!("../../migrations/0024_reply_tokens.sql")),
        M::up(include_str!("../../migrations/0025_reply_setting.sql")),
        M::up(include_str!("../../migrations/0020_retention.sql")),
        M::up(include_str!(
            "../../migrations/0022_address_confirmation.sql"
        )),
        M::up(include_str!("../../migrations/0023_throttles.sql")),
        M::up(include_str!("../../migrations/0026_ply_keys.sql")),
        M::up(include_str!(
            "../../migrations/0027_reply_token_retention.sql"
        )),
        M::up(include_str!("../../migrations/0030_service_state.sql")),
        M::up(include_str!("../../migrations/0031_outbox_claims.sql")),
        M::up(include_str!("../../migrations/0032_secrets_at_rest.sql")),
        M::up(include_str!("../../migrations/0033_confirmation_mails.sql")),
        M::up(include_str!(
            "../../migrations/0034_throttle_key_and_board_starts.sql"
        )),
        M::up(include_str!("../../migrations/0035_inbound_attempts.sql")),
        M::up(include_str!(
            "../../migrations/0036_clear_old_position_keys.sql"
        )),
        M::up(include_str!("../../migrations/0037_html_mail_form.sql")),
        M::up(include_str!(
            "../../migrations/0038_recount_reveal_lines.sql"
        )),
        M::up(include_str!("../../migrations/0039_held_back.sql")),
        M::up(include_str!("../../migrations/0040_conditional_lines.sql")),
        M::up(include_str!("../../migrations/0041_tournaments.sql")),
        M::up(include_str!(
            "../../migrations/0044_bounces_once_per_mail.sql"
        )),
        M::up(include_str!(
            "../../migrations/0045_duplicates_by_fingerprint.sql"
        )),
        M::up(include_str!(
            "../../migrations/0046_board_start_opponents.sql"
        )),
        M::up(include_str!("../../migrations/0048_application_id.sql")),
        M::up(include_str!(
            "../../migrations/0049_tournament_tiebreaks.sql"
        )),
        M::up(include_str!(
            "../../migrations/0050_tournament_game_ratings.sql"
        )),
        M::up(include_str!("../../migrations/0051_whole_score.sql")),
        M::up(include_str!("../../migrations/0053_picture_mail.sql")),
        M::up(include_str!("../../migrations/0054_board_pictures.sql")),
        M::up(include_str!("../../migrations/0055_rating_history.sql")),
        M::up(include_str!("../../migrations/0052_notices_by_age.sql")),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{insert_board, NewBoard};
    use rusqlite::Connection;

    /// The order `migrations()` applies them in, as databases in use have
    /// recorded it (by count: see `migrations`). Append; never reorder.
    const PINNED_MIGRATIONS: [&str; 24] = [
        "0001_initial.sql",
        "0002_observers.sql",
        "0003_pending_moves.sql",
        "0004_player_settings.sql",
        "0005_board_counters.sql",
        "0006_board_mail.sql",
        "0007_seeks.sql",
        "0010_computer.sql",
        "0012_inbound_failures.sql",
        "0014_board_resume_point.sql",
        "0024_reply_tokens.sql",
        "0025_reply_setting.sql",
        "0020_retention.sql",
        "0022_address_confirmation.sql",
        "0023_throttles.sql",
        "0026_ply_keys.sql",
        "0027_reply_token_retention.sql",
        "0030_service_state.sql",
        "0031_outbox_claims.sql",
        "0032_secrets_at_rest.sql",
        "0033_confirmation_mails.sql",
        "0034_throttle_key_and_board_starts.sql",
        "0035_inbound_attempts.sql",
        "0036_clear_old_position_keys.sql",
    ];

    /// The file names `migrations()` lists, in its order, read from this
    /// file's source (the `include_str!` paths).
    fn listed_migrations() -> Vec<String> {
        let source = include_str!("migrations.rs");
        let body = &source[source.find("fn migrations()").unwrap()..];
        let body = &body[..body.find("\n}\n").unwrap()];
        body.split("migrations/")
            .skip(1)
            .map(|s| s[..s.find('"').unwrap()].to_string())
            .collect()
    }

    #[test]
    fn migrations_keep_their_pinned_order() {
        let listed = listed_migrations();
        assert!(listed.len() >= PINNED_MIGRATIONS.len(), "{listed:?}");
        assert_eq!(listed[..PINNED_MIGRATIONS.len()], PINNED_MIGRATIONS);
        // Every listed migration runs: the count the database records is
        // the count of this list.
        let mut conn = Connection::open_in_memory().unwrap();
        migrations().to_latest(&mut conn).unwrap();
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(usize::try_from(version).unwrap(), listed.len());
    }

    #[test]
    fn every_migration_file_is_listed_once() {
        let mut listed = listed_migrations();
        listed.sort();
        let mut files: Vec<String> =
            std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/migrations"))
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".sql"))
                .collect();
        files.sort();
        assert_eq!(listed, files);
    }

    #[test]
    fn migrations_are_valid() {
        migrations().validate().unwrap();
    }

    #[test]
    fn an_older_database_keeps_its_board_numbers_after_upgrading() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.pragma_update(None, "foreign_keys", "ON").unwrap();
        migrations().to_version(&mut conn, 4).unwrap();
        conn.execute_batch(
            "INSERT INTO users VALUES ('a', 'h', '2026-01-01T00:00:00Z', NULL);
             INSERT INTO boards (game, board, start_position, position, status, created_at,
                                 last_action_at)
             VALUES ('chess', 107, 's', 's', 'active', '2026-01-01T00:00:00Z',
                     '2026-01-01T00:00:00Z');",
        )
        .unwrap();
        migrations().to_latest(&mut conn).unwrap();
        let number = insert_board(
            &conn,
            &NewBoard {
                game: "chess",
                options: &[],
                start_position: "s",
                players: &["a".to_string(), "a".to_string()],
                nag_days: None,
                forfeit_days: None,
                total_days: None,
                now: chrono::Utc::now(),
            },
        )
        .unwrap();
        assert_eq!(number, 108);
    }
}
