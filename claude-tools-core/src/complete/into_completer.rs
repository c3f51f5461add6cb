//! [`IntoCompleter`]: the fns a completer may be (what was typed; the arguments filled in; one
//! or two extractors after them), each turned into one boxed [`ContextCompleter`].

use super::*;

/// A fn that completes an argument: what `complete(argument = f)` of `#[prompt]` and
/// `#[resource]` accepts. One of these shapes:
///
/// - `fn(typed: &str) -> Values`: what the user has typed of the argument;
/// - `fn(typed: &str, context: &CompletionContext) -> Values`: and the other arguments already
///   filled in ([`CompletionContext`]);
/// - the second followed by one or two **extractors**, as a `#[tool]` takes them (types
///   implementing `ToolParam`): `State<T>` (the server's state), `ToolContext` (the request's
///   context), `Extension<T>` (the caller's identity over HTTP), or your own:
///   `fn(typed: &str, context: &CompletionContext, catalog: State<Catalog>) -> Values` (the
///   context comes first even when the fn does not read it, `_: &CompletionContext`, so that
///   the shapes are told apart by their number of parameters);
///
/// where `Values` is any list of strings (`Vec<String>`, `Vec<&str>`, `[&str; N]`, an
/// iterator…), which may borrow from what was typed. `Marker` tells the shapes apart; it is
/// inferred.
///
/// A completer is a plain, **sync** fn: the client calls it at every keystroke and waits for
/// the values, so it should answer from what it has at hand (a list in the state, a cache the
/// application refreshes), not from a slow lookup. An `async fn` is not a completer.
///
/// An extractor that cannot be extracted (a `State<T>` the server lacks) makes the
/// `completion/complete` answer an error naming it (`-32603`).
///
/// ```
/// use claude_tools::complete::{CompletionContext, IntoCompleter};
///
/// fn units(typed: &str) -> Vec<&'static str> {
///     ["ft", "in", "mi"].into_iter().filter(|unit| unit.starts_with(typed)).collect()
/// }
/// fn days(typed: &str, context: &CompletionContext) -> Vec<String> {
///     let last = match context.parse::<u32>("month") {
///         Some(2) => 28,
///         Some(4 | 6 | 9 | 11) => 30,
///         _ => 31,
///     };
///     (1..=last).map(|day| day.to_string()).filter(|day| day.starts_with(typed)).collect()
/// }
///
/// let units = units.into_completer();
/// assert_eq!(units("m", &CompletionContext::default()), ["mi"]);
/// let days = days.into_completer();
/// let february = CompletionContext::from_iter([("month", "2")]);
/// assert_eq!(days("3", &february), ["3"]);
/// assert_eq!(days("3", &CompletionContext::default()), ["3", "30", "31"]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a completer",
    label = "not a completer fn",
    note = "a completer takes what the user typed, `typed: &str`, and optionally the arguments already filled in, `context: &CompletionContext`, then, after the context, optionally one or two extractors (`State<T>`, `ToolContext`, `Extension<T>`), and returns the values (`Vec<String>`, or any list of strings): `fn values(typed: &str) -> Vec<String>`, `fn values(typed: &str, context: &CompletionContext) -> Vec<String>`, `fn values(typed: &str, _: &CompletionContext, state: State<T>) -> Vec<String>`",
    note = "a completer is a sync fn (the client waits for it at every keystroke): an `async fn` is not one; answer from data at hand, such as a list kept in the server's state"
)]
pub trait IntoCompleter<Marker>: Send + Sync + 'static {
    /// The completer, boxed (a one-parameter fn ignores the context; a fn whose extractors
    /// cannot be extracted gives no values).
    fn into_completer(self) -> ContextCompleter;

    /// How the argument is completed: [`ArgumentCompletion::WithContext`], or, for a fn taking
    /// extractors, [`ArgumentCompletion::Extracting`] (whose failures are answered as errors).
    fn into_argument_completion(self) -> ArgumentCompletion
    where
        Self: Sized,
    {
        ArgumentCompletion::WithContext(self.into_completer())
    }
}

/// The [`IntoCompleter`] marker of a fn of what was typed, the [`CompletionContext`] and
/// extractors `E` (a tuple).
#[doc(hidden)]
pub struct InContextWith<E>(std::marker::PhantomData<fn() -> E>);

/// A fn of what was typed, the [`CompletionContext`] and extractors `E` (a tuple), returning a
/// list of strings (for [`IntoCompleter`]).
#[doc(hidden)]
pub trait CompleteInContextWith<'a, E> {
    /// What it returns.
    type Values: IntoIterator<Item: Into<String>>;
    /// Calls it.
    fn call(&self, typed: &'a str, context: &'a CompletionContext, extractors: E) -> Self::Values;
}

/// The extractors of a completer, as a tuple, read from a [`CompletionContext`].
#[doc(hidden)]
pub trait Extractors: Sized {
    /// Extracts them all, or says why one could not be.
    fn extract(context: &CompletionContext) -> Result<Self, String>;
}

macro_rules! completer_with_extractors {
    ($($extractor:ident),+) => {
        impl<$($extractor: ToolParam),+> Extractors for ($($extractor,)+) {
            fn extract(context: &CompletionContext) -> Result<Self, String> {
                Ok(($(context.extract::<$extractor>("completer")?,)+))
            }
        }

        impl<'a, F, R, $($extractor),+> CompleteInContextWith<'a, ($($extractor,)+)> for F
        where
            F: Fn(&'a str, &'a CompletionContext, $($extractor),+) -> R,
            R: IntoIterator<Item: Into<String>>,
        {
            type Values = R;
            #[allow(non_snake_case)]
            fn call(
                &self,
                typed: &'a str,
                context: &'a CompletionContext,
                ($($extractor,)+): ($($extractor,)+),
            ) -> R {
                self(typed, context, $($extractor),+)
            }
        }

        impl<F, $($extractor: ToolParam),+> IntoCompleter<InContextWith<($($extractor,)+)>> for F
        where
            F: for<'a> CompleteInContextWith<'a, ($($extractor,)+)> + Send + Sync + 'static,
        {
            fn into_completer(self) -> ContextCompleter {
                let completer = self.into_argument_completion();
                Arc::new(move |typed, context| completer.complete_in(typed, context))
            }

            fn into_argument_completion(self) -> ArgumentCompletion {
                ArgumentCompletion::Extracting(extracting(move |typed, context| {
                    let extractors = <($($extractor,)+)>::extract(context)?;
                    Ok(collect(CompleteInContextWith::call(&self, typed, context, extractors)))
                }))
            }
        }
    };
}

completer_with_extractors!(E1);
completer_with_extractors!(E1, E2);

/// Boxes a completer taking extractors.
fn extracting(
    completer: impl Fn(&str, &CompletionContext) -> Result<Vec<String>, String> + Send + Sync + 'static,
) -> ExtractingCompleter {
    Arc::new(completer)
}

/// A completer's values as strings.
fn collect(values: impl IntoIterator<Item: Into<String>>) -> Vec<String> {
    values.into_iter().map(Into::into).collect()
}

/// A fn of what was typed, returning a list of strings (for [`IntoCompleter`]).
#[doc(hidden)]
pub trait CompleteTyped<'a> {
    /// What it returns.
    type Values: IntoIterator<Item: Into<String>>;
    /// Calls it.
    fn call(&self, typed: &'a str) -> Self::Values;
}

impl<'a, F, R> CompleteTyped<'a> for F
where
    F: Fn(&'a str) -> R,
    R: IntoIterator<Item: Into<String>>,
{
    type Values = R;
    fn call(&self, typed: &'a str) -> R {
        self(typed)
    }
}

/// A fn of what was typed and the [`CompletionContext`], returning a list of strings (for
/// [`IntoCompleter`]).
#[doc(hidden)]
pub trait CompleteInContext<'a> {
    /// What it returns.
    type Values: IntoIterator<Item: Into<String>>;
    /// Calls it.
    fn call(&self, typed: &'a str, context: &'a CompletionContext) -> Self::Values;
}

impl<'a, F, R> CompleteInContext<'a> for F
where
    F: Fn(&'a str, &'a CompletionContext) -> R,
    R: IntoIterator<Item: Into<String>>,
{
    type Values = R;
    fn call(&self, typed: &'a str, context: &'a CompletionContext) -> R {
        self(typed, context)
    }
}

impl<F> IntoCompleter<fn(&str)> for F
where
    F: for<'a> CompleteTyped<'a> + Send + Sync + 'static,
{
    fn into_completer(self) -> ContextCompleter {
        Arc::new(move |typed, _context| {
            CompleteTyped::call(&self, typed)
                .into_iter()
                .map(Into::into)
                .collect()
        })
    }
}

impl<F> IntoCompleter<fn(&str, &CompletionContext)> for F
where
    F: for<'a> CompleteInContext<'a> + Send + Sync + 'static,
{
    fn into_completer(self) -> ContextCompleter {
        Arc::new(move |typed, context| {
            CompleteInContext::call(&self, typed, context)
                .into_iter()
                .map(Into::into)
                .collect()
        })
    }
}
