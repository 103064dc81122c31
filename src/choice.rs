//! Closed sets of choices (precision, batching, serving, price tier, ...): one `Choice` trait,
//! whose `ALL` list of ids and labels the field table, parsers, errors and the CLI's usage read,
//! so a choice is spelled once (STYLE.md "Closed sets are enums").

/// A closed set: every value in `ALL`'s order (the page's menu order, the default first where
/// the menu puts it first), each with the id links, JSON and CLI flags use and a label.
pub trait Choice: Copy + Eq + 'static {
    /// Every value, in the order menus, help and errors list them.
    const ALL: &'static [Self];

    /// `(id, label)` of each value in `ALL`'s order: the field table's `Field::choices`.
    const CHOICES: &'static [(&'static str, &'static str)];

    /// The id links, JSON, the CLI and the page's `<option value>` use.
    fn id(self) -> &'static str;

    /// What a menu shows.
    fn label(self) -> &'static str;

    /// The value whose id `text` is, blanks around it and ASCII case ignored.
    fn parse(text: &str) -> Option<Self> {
        parse_id(text)
    }

    /// The value whose id `text` is exactly (as a field's setter reads a decision's choice).
    fn parse_exact(text: &str) -> Option<Self> {
        position(Self::CHOICES, text, Case::Kept).and_then(|i| Self::ALL.get(i).copied())
    }

    /// The ids joined by `separator`: "a, b, c" for errors, "a|b|c" for the CLI's usage.
    fn ids(separator: &str) -> String {
        ids(Self::CHOICES, separator)
    }

    /// "`x` is not one of a, b, c": the error of a text that names no value.
    fn not_one_of(given: &str) -> String {
        not_one_of(given, Self::CHOICES)
    }
}

/// `#[serde(with = "crate::choice::as_id")]`: a field of a closed set is written as its id and
/// read through `Choice::parse` (blanks and case forgiven, as a link's or a flag's value is), so
/// serialized input reads as it did when these fields were strings.
pub mod as_id {
    use super::Choice;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<C: Choice, S: Serializer>(
        value: &C,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(value.id())
    }

    pub fn deserialize<'de, C: Choice, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<C, D::Error> {
        let text = String::deserialize(deserializer)?;
        C::parse(&text).ok_or_else(|| serde::de::Error::custom(C::not_one_of(&text)))
    }

    /// An optional value: its id, or null.
    pub fn serialize_option<C: Choice, S: Serializer>(
        value: &Option<C>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(value) => serializer.serialize_some(value.id()),
            None => serializer.serialize_none(),
        }
    }
}

/// The value of `C` whose id `text` is, blanks around it and ASCII case ignored: `Choice::parse`,
/// for a set whose own `parse` also reads other spellings before falling back to its ids.
pub fn parse_id<C: Choice>(text: &str) -> Option<C> {
    position(C::CHOICES, text.trim(), Case::Ignored).and_then(|i| C::ALL.get(i).copied())
}

/// `(id, label)` of `value`, found in `C::ALL` (the bracketed form of `choices!`).
pub fn entry<C: Choice>(value: C) -> (&'static str, &'static str) {
    C::ALL
        .iter()
        .position(|v| *v == value)
        .and_then(|i| C::CHOICES.get(i))
        .copied()
        .unwrap_or(("", ""))
}

// The list-reading halves are plain functions of `(id, label)` pairs, not generic, so every
// closed set shares one copy of them in the wasm modules.

/// Whether a parse ignores ASCII case.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Case {
    Ignored,
    Kept,
}

/// Where in `choices` the id `text` is.
#[inline(never)]
fn position(choices: &[(&str, &str)], text: &str, case: Case) -> Option<usize> {
    choices.iter().position(|(id, _)| match case {
        Case::Ignored => id.eq_ignore_ascii_case(text),
        Case::Kept => *id == text,
    })
}

/// The ids of `choices` joined by `separator`.
#[inline(never)]
pub fn ids(choices: &[(&str, &str)], separator: &str) -> String {
    choices
        .iter()
        .map(|(id, _)| *id)
        .collect::<Vec<_>>()
        .join(separator)
}

/// "`x` is not one of a, b, c", the ids from `choices`.
#[inline(never)]
pub fn not_one_of(given: &str, choices: &[(&str, &str)]) -> String {
    format!("`{given}` is not one of {}", ids(choices, ", "))
}

/// `choices!(Batching { Batching::Continuous => "continuous", "Continuous (iteration-level)"; ... })`:
/// the `Choice` impl of an enum from one list (each value a path, so it is both `ALL`'s
/// element and `id`'s and `label`'s match arm), so `ALL`, `CHOICES`, `id` and `label` cannot
/// disagree. A set whose values are not paths (`Option<SpecMethod>`: `None`, `Some(…)`) lists
/// them in brackets, `choices!(T [None => "off", "Off"; …])`, and `id`/`label` find the value in
/// `ALL`. Items after the list go into the impl: a `parse` that also reads other spellings.
macro_rules! choices {
    ($name:ty { $($value:path => $id:expr, $label:expr;)+ } $($extra:item)*) => {
        impl $crate::choice::Choice for $name {
            const ALL: &'static [$name] = &[$($value),+];
            const CHOICES: &'static [(&'static str, &'static str)] = &[$(($id, $label)),+];

            fn id(self) -> &'static str {
                match self {
                    $($value => $id,)+
                }
            }

            fn label(self) -> &'static str {
                match self {
                    $($value => $label,)+
                }
            }

            $($extra)*
        }
    };
    ($name:ty [ $($value:expr => $id:expr, $label:expr;)+ ] $($extra:item)*) => {
        impl $crate::choice::Choice for $name {
            const ALL: &'static [$name] = &[$($value),+];
            const CHOICES: &'static [(&'static str, &'static str)] = &[$(($id, $label)),+];

            fn id(self) -> &'static str {
                $crate::choice::entry(self).0
            }

            fn label(self) -> &'static str {
                $crate::choice::entry(self).1
            }

            $($extra)*
        }
    };
}
pub(crate) use choices;

// A switch (a decision's electricity, `fields::ENERGY`): off or on.
choices!(bool [
    false => "off", "Off";
    true => "on", "On";
]);

#[cfg(test)]
mod tests {
    use super::Choice;

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Colour {
        Red,
        DarkBlue,
    }

    choices!(Colour {
        Colour::Red => "red", "Red";
        Colour::DarkBlue => "dark-blue", "Dark blue";
    });

    #[test]
    fn ids_labels_and_parsing_come_from_one_list() {
        assert_eq!(Colour::ALL, &[Colour::Red, Colour::DarkBlue]);
        assert_eq!(
            (Colour::DarkBlue.id(), Colour::DarkBlue.label()),
            ("dark-blue", "Dark blue")
        );
        assert_eq!(
            Colour::CHOICES,
            &[("red", "Red"), ("dark-blue", "Dark blue")]
        );
        assert_eq!(Colour::parse(" Dark-Blue "), Some(Colour::DarkBlue));
        assert_eq!(Colour::parse_exact("Red"), None);
        assert_eq!(Colour::parse_exact("red"), Some(Colour::Red));
        assert_eq!(Colour::ids("|"), "red|dark-blue");
        assert_eq!(Colour::not_one_of("x"), "`x` is not one of red, dark-blue");
    }
}
