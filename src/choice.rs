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
    fn id(self) -> &'static str {
        self.entry().0
    }

    /// What a menu shows.
    fn label(self) -> &'static str {
        self.entry().1
    }

    /// This value's `(id, label)` (`("", "")` only for a value missing from `ALL`, which
    /// `choices!` cannot write).
    fn entry(self) -> (&'static str, &'static str) {
        Self::ALL
            .iter()
            .position(|choice| *choice == self)
            .and_then(|index| Self::CHOICES.get(index))
            .copied()
            .unwrap_or(("", ""))
    }

    /// The value whose id `text` is, blanks around it and ASCII case ignored.
    fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        Self::ALL
            .iter()
            .copied()
            .find(|choice| choice.id().eq_ignore_ascii_case(text))
    }

    /// The value whose id `text` is exactly (as a field's setter reads a decision's choice).
    fn parse_exact(text: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|choice| choice.id() == text)
    }

    /// The ids joined by `separator`: "a, b, c" for errors, "a|b|c" for the CLI's usage.
    fn ids(separator: &str) -> String {
        Self::ALL
            .iter()
            .map(|choice| choice.id())
            .collect::<Vec<_>>()
            .join(separator)
    }

    /// "`x` is not one of a, b, c": the error of a text that names no value.
    fn not_one_of(given: &str) -> String {
        format!("`{given}` is not one of {}", Self::ids(", "))
    }
}

/// `choices!(Batching { Batching::Continuous => "continuous", "Continuous (iteration-level)"; ... })`:
/// the `Choice` impl of a type, `ALL` and `CHOICES` from one list, so they cannot disagree.
macro_rules! choices {
    ($name:ty { $($value:expr => $id:expr, $label:expr;)+ }) => {
        impl $crate::choice::Choice for $name {
            const ALL: &'static [$name] = &[$($value),+];
            const CHOICES: &'static [(&'static str, &'static str)] = &[$(($id, $label)),+];
        }
    };
}
pub(crate) use choices;

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
