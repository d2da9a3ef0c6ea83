//! The definition of the command line, checked as a whole: clap's own
//! checks, one long name per short flag, no tracker issue in any help.

use super::*;
use clap::CommandFactory;

#[test]
fn definition_is_consistent() {
    Cli::command().debug_assert();
}

/// Every command, subcommands included, with its path ("index query").
fn commands() -> Vec<(String, clap::Command)> {
    let mut todo = vec![(String::new(), Cli::command())];
    let mut all = Vec::new();
    while let Some((path, command)) = todo.pop() {
        for sub in command.get_subcommands() {
            let name = format!("{path} {}", sub.get_name());
            todo.push((name.trim().to_string(), sub.clone()));
        }
        all.push((path, command));
    }
    all
}

#[test]
fn each_short_flag_has_one_long_name_in_every_command() {
    let mut seen: std::collections::BTreeMap<char, (String, String)> = Default::default();
    for (path, command) in commands() {
        for arg in command.get_arguments() {
            let (Some(short), Some(long)) = (arg.get_short(), arg.get_long()) else {
                continue;
            };
            let (first, first_long) = seen
                .entry(short)
                .or_insert_with(|| (path.clone(), long.to_string()));
            assert_eq!(
                first_long, long,
                "-{short} is --{first_long} in `{first}` but --{long} in `{path}`"
            );
        }
    }
    assert_eq!(seen[&'o'].1, "out");
    assert_eq!(seen[&'k'].1, "k");
}

#[test]
fn help_names_no_tracker_issue() {
    let tracker = |text: &str| {
        let lower = text.to_lowercase();
        lower.contains("issue ")
            || lower
                .split('#')
                .skip(1)
                .any(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
    };
    for (path, mut command) in commands() {
        let help = command.render_long_help().to_string();
        assert!(
            !tracker(&help),
            "`neardup {path} --help` names an issue:\n{help}"
        );
    }
}

#[test]
fn compare_usage_names_its_two_documents() {
    let mut compare = Cli::command().find_subcommand("compare").unwrap().clone();
    let usage = compare.render_usage().to_string();
    assert!(usage.ends_with("[OPTIONS] <A> <B>"), "{usage}");
}
