//! The `iomark` binary: parse, dispatch, report. All real work is in the library.

use iomark::cli::{self, Command};

fn main() {
    let cli = match cli::parse() {
        Ok(cli) => cli,
        Err((line, code)) => {
            if !line.is_empty() {
                iomark::output::print_error(&line);
            }
            std::process::exit(code);
        }
    };
    iomark::output::set_color(match cli.color {
        cli::ColorArg::Auto => None,
        cli::ColorArg::Always => Some(true),
        cli::ColorArg::Never => Some(false),
    });
    // The servers stop gracefully on their own signals: requests in flight finish (the app
    // stops its runs as Ctrl-C would).
    let own_signals = matches!(cli.command, Command::Serve(_) | Command::Ui(_));
    if let Err(error) = (!own_signals)
        .then(iomark::interrupt::install)
        .unwrap_or(Ok(()))
    {
        iomark::output::print_error(&format!("cannot watch for Ctrl-C: {error}"));
        std::process::exit(1);
    }
    let outcome = match cli.command {
        Command::Run(args) => iomark::commands::run::run(args),
        Command::Info(args) => iomark::commands::info::run(args),
        Command::Langs(args) => iomark::commands::langs::run(args),
        Command::Verify(args) => iomark::commands::verify::run(args),
        Command::Health(args) => iomark::commands::health::run(args),
        Command::History(args) => iomark::commands::history::list(args),
        Command::Show(args) => iomark::commands::history::show(args),
        Command::Compare(args) => iomark::commands::compare::run(args),
        Command::Export(args) => iomark::commands::export::export(args),
        Command::Plot(args) => iomark::commands::export::plot(args),
        Command::Import(args) => iomark::commands::history::import(args),
        Command::Delete(args) => iomark::commands::history::delete(args),
        Command::Serve(args) => iomark::commands::serve::run(&args),
        Command::Ui(args) => iomark::commands::ui::run(&args),
        Command::Store(args) => match args.command {
            cli::StoreCommand::Backup(args) => iomark::commands::store::backup(&args),
        },
        Command::Submit(args) => iomark::commands::submit::run(&args),
        Command::Completions(args) => iomark::commands::shell::completions(args),
        Command::Man(args) => iomark::commands::shell::man(args),
    };
    // Everything the command created (the test file above all) has been dropped by now.
    if let Err(error) = outcome {
        // Stopped by the user: what was left where, and the signal's status.
        if let Some(stopped) = error.downcast_ref::<iomark::commands::Stopped>() {
            iomark::output::to_stderr(&format!("iomark: {stopped}\n"));
            std::process::exit(iomark::interrupt::stop_status());
        }
        if let Some(iomark::commands::Exit(code)) = error.downcast_ref() {
            std::process::exit(*code);
        }
        iomark::output::print_error(&format!("{error:#}"));
        std::process::exit(1);
    }
}
