//! Every text a player reads comes from `templates/` (built in), or from a
//! file of the same name in `[templates] dir`, which overrides it.

use std::path::Path;

use minijinja::Environment;
use minijinja::Value;

/// The built-in templates, by name.
const BUILT_IN: &[(&str, &str)] = &[
    ("board.txt", include_str!("../../templates/board.txt")),
    ("error.txt", include_str!("../../templates/error.txt")),
    ("message.txt", include_str!("../../templates/message.txt")),
    ("games.txt", include_str!("../../templates/games.txt")),
    ("multiple.txt", include_str!("../../templates/multiple.txt")),
    (
        "help/general.txt",
        include_str!("../../templates/help/general.txt"),
    ),
    (
        "help/commands.txt",
        include_str!("../../templates/help/commands.txt"),
    ),
    (
        "help/reply.txt",
        include_str!("../../templates/help/reply.txt"),
    ),
    ("help/if.txt", include_str!("../../templates/help/if.txt")),
    (
        "help/drawing.txt",
        include_str!("../../templates/help/drawing.txt"),
    ),
    (
        "help/notations_orthodox.txt",
        include_str!("../../templates/help/notations_orthodox.txt"),
    ),
    (
        "help/notations_own.txt",
        include_str!("../../templates/help/notations_own.txt"),
    ),
    (
        "help/chess.txt",
        include_str!("../../templates/help/chess.txt"),
    ),
    (
        "help/doublechess.txt",
        include_str!("../../templates/help/doublechess.txt"),
    ),
    (
        "help/doppelganger.txt",
        include_str!("../../templates/help/doppelganger.txt"),
    ),
    (
        "help/shadowchess.txt",
        include_str!("../../templates/help/shadowchess.txt"),
    ),
    (
        "help/mchess.txt",
        include_str!("../../templates/help/mchess.txt"),
    ),
    (
        "help/zelig.txt",
        include_str!("../../templates/help/zelig.txt"),
    ),
    (
        "help/zelig2.txt",
        include_str!("../../templates/help/zelig2.txt"),
    ),
    (
        "help/temporal.txt",
        include_str!("../../templates/help/temporal.txt"),
    ),
    (
        "help/tournament.txt",
        include_str!("../../templates/help/tournament.txt"),
    ),
];

/// A template could not be loaded or rendered: an admin's problem, never a
/// player's.
#[derive(Debug, thiserror::Error)]
pub enum TemplateError {
    #[error("cannot read the template override {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("template {name}: {source}")]
    Render {
        name: String,
        source: minijinja::Error,
    },
}

/// The `wrap` filter: prose wrapped at word boundaries to the 78 columns
/// of a mail line (see [`super::wrapping::wrap`] for what is left as it is).
/// Nothing (an undefined or none value) stays nothing, so `{% if x %}`
/// tests still work on a wrapped value; any other value is wrapped as the
/// text it renders to.
fn wrap_filter(value: Value) -> Value {
    if value.is_undefined() || value.is_none() {
        return value;
    }
    let text = match value.as_str() {
        Some(s) => s.to_string(),
        None => value.to_string(),
    };
    Value::from(super::wrapping::wrap(&text, super::wrapping::MAIL_WIDTH))
}

/// The `underline` filter: a line of `=` as long as the value's text (in
/// characters), so a title whose length depends on the server's name is
/// underlined to its last letter.
fn underline_filter(value: Value) -> String {
    let text = match value.as_str() {
        Some(s) => s.to_string(),
        None => value.to_string(),
    };
    "=".repeat(text.chars().count())
}

/// The `clip` filter: each line of the text cut to `width` characters,
/// the cut marked by `...` (what a quote of the player's own words, a
/// command or a Subject, is cut to so that it fits a mail line: the quote
/// reminds, it is not a record). Nothing stays nothing, as for `wrap`.
fn clip_filter(value: Value, width: usize) -> Value {
    if value.is_undefined() || value.is_none() {
        return value;
    }
    let text = match value.as_str() {
        Some(s) => s.to_string(),
        None => value.to_string(),
    };
    Value::from(super::wrapping::clip(&text, width))
}

/// The loaded templates.
pub struct Templates {
    env: Environment<'static>,
}

impl Templates {
    /// The built-in templates, each overridden by `dir/<name>` when that file exists.
    pub fn load(dir: Option<&Path>) -> Result<Templates, TemplateError> {
        let mut env = Environment::new();
        env.set_syntax(
            minijinja::syntax::SyntaxConfig::builder()
                .trim_blocks(true)
                .lstrip_blocks(true)
                .build()
                .expect("a valid syntax config"),
        );
        env.add_filter("wrap", wrap_filter);
        env.add_filter("underline", underline_filter);
        env.add_filter("clip", clip_filter);
        for (name, source) in BUILT_IN {
            let source = match dir.map(|d| d.join(name)).filter(|p| p.is_file()) {
                Some(path) => {
                    std::fs::read_to_string(&path).map_err(|source| TemplateError::Read {
                        path: path.display().to_string(),
                        source,
                    })?
                }
                None => source.to_string(),
            };
            env.add_template_owned(name.to_string(), source)
                .map_err(|source| TemplateError::Render {
                    name: name.to_string(),
                    source,
                })?;
        }
        Ok(Templates { env })
    }

    /// Whether a template of this name exists (for help topics).
    pub fn has(&self, name: &str) -> bool {
        self.env.get_template(name).is_ok()
    }

    /// Render `name` with `context`; the text ends with one newline.
    pub(crate) fn render<V: Into<Value>>(
        &self,
        name: &str,
        context: V,
    ) -> Result<String, TemplateError> {
        let err = |source| TemplateError::Render {
            name: name.to_string(),
            source,
        };
        let text = self
            .env
            .get_template(name)
            .map_err(err)?
            .render(context)
            .map_err(err)?;
        let mut text = text.trim_end().to_string();
        text.push('\n');
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use minijinja::context;

    #[test]
    fn every_built_in_template_compiles() {
        let t = Templates::load(None).unwrap();
        for (name, _) in BUILT_IN {
            assert!(t.has(name), "{name}");
        }
    }

    #[test]
    fn the_wrap_filter_keeps_prose_within_a_mail_line() {
        let t = Templates::load(None).unwrap();
        let text = "word ".repeat(40);
        let out = t
            .render("message.txt", context! { text => text.trim_end() })
            .unwrap();
        assert!(out.lines().all(|l| l.chars().count() <= 78), "{out}");
        assert_eq!(
            out.split_whitespace().collect::<Vec<_>>(),
            text.split_whitespace().collect::<Vec<_>>()
        );
        // An override may use it too, and nothing stays nothing.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("message.txt"), "[{{ missing | wrap }}]").unwrap();
        let t = Templates::load(Some(dir.path())).unwrap();
        assert_eq!(t.render("message.txt", context! {}).unwrap(), "[]\n");
    }

    #[test]
    fn an_override_file_replaces_the_built_in() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("message.txt"), "NOTE: {{ text }}").unwrap();
        let t = Templates::load(Some(dir.path())).unwrap();
        assert_eq!(
            t.render("message.txt", context! { text => "hi" }).unwrap(),
            "NOTE: hi\n"
        );
        // Others stay built in.
        let t = Templates::load(None).unwrap();
        assert_eq!(
            t.render("message.txt", context! { text => "hi" }).unwrap(),
            "hi\n"
        );
    }
}
