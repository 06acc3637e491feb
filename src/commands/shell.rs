//! `iomark completions` and `iomark man`: what a shell and `man` need, made from the clap
//! definitions themselves, so they can never disagree with the options.

use std::path::Path;

use anyhow::bail;
use clap::CommandFactory;

use super::destination::Destination;
use super::write_stdout;
use crate::cli::{Cli, CompletionsArgs, ManArgs};

pub fn completions(args: CompletionsArgs) -> anyhow::Result<()> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "iomark", &mut script);
    write_stdout(&script)
}

pub fn man(args: ManArgs) -> anyhow::Result<()> {
    let mut command = Cli::command();
    command.build();
    if let Some(dir) = &args.dir {
        return man_pages(command, dir);
    }
    let page = match &args.command {
        None => command,
        Some(name) => {
            let Some(sub) = command.find_subcommand(name).cloned() else {
                let names: Vec<String> = command
                    .get_subcommands()
                    .map(|c| c.get_name().to_string())
                    .collect();
                bail!("no command '{name}' (commands: {})", names.join(", "));
            };
            sub.name(format!("iomark-{name}"))
        }
    };
    write_stdout(&roff(page)?)
}

fn roff(page: clap::Command) -> anyhow::Result<Vec<u8>> {
    let mut roff = Vec::new();
    clap_mangen::Man::new(page).render(&mut roff)?;
    Ok(roff)
}

/// `iomark man --dir DIR`: the main page and one per command (clap's own `help` has none), each
/// checked and written as `--json` and `export -o` write theirs.
fn man_pages(command: clap::Command, dir: &Path) -> anyhow::Result<()> {
    let mut pages = vec![("iomark.1".to_string(), command.clone())];
    for sub in command.get_subcommands().filter(|c| c.get_name() != "help") {
        let name = format!("iomark-{}", sub.get_name());
        pages.push((format!("{name}.1"), sub.clone().name(name)));
    }
    for (file, page) in pages {
        let destination = Destination::check("--dir", &dir.join(file))?;
        destination.write(&roff(page)?)?;
    }
    Ok(())
}
