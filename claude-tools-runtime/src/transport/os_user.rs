//! Running the CLI as another OS user (Unix): the user's name resolved to the ids the process
//! is started with.

use std::ffi::CString;

use crate::error::{Error, Result};

/// An OS user the CLI runs as: the name, resolved from the user database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OsUser {
    /// The user id the process takes.
    pub(crate) uid: u32,
    /// The user's primary group, which the process takes too.
    pub(crate) gid: u32,
}

/// The longest a passwd record's strings may take before the lookup gives up (1 MiB); the
/// buffer starts at the size the system suggests and doubles on `ERANGE` up to this.
const MAX_RECORD: usize = 1 << 20;

impl OsUser {
    /// Looks `name` up in the user database (`getpwnam_r`, so NSS sources count). Blocking:
    /// call it off the async runtime. An unknown name is [`Error::UnknownUser`]; a name with a
    /// NUL byte is one no database holds.
    pub(crate) fn lookup(name: &str) -> Result<Self> {
        let unknown = || Error::UnknownUser {
            name: name.to_owned(),
            reason: None,
        };
        let Ok(c_name) = CString::new(name) else {
            return Err(unknown());
        };
        // SAFETY: sysconf only reads a system constant.
        let suggested = unsafe { libc::sysconf(libc::_SC_GETPW_R_SIZE_MAX) };
        let mut size = usize::try_from(suggested)
            .ok()
            .filter(|&size| size > 0)
            .unwrap_or(1024)
            .min(MAX_RECORD);
        loop {
            let mut buffer = vec![0 as libc::c_char; size];
            // SAFETY: a zeroed passwd is a valid value of a plain C struct of ints and pointers.
            let mut record: libc::passwd = unsafe { std::mem::zeroed() };
            let mut found: *mut libc::passwd = std::ptr::null_mut();
            // SAFETY: every pointer is valid for the call: the name is NUL-terminated, `record`
            // and `found` are live locals, and `buffer` holds `buffer.len()` bytes.
            let code = unsafe {
                libc::getpwnam_r(
                    c_name.as_ptr(),
                    &mut record,
                    buffer.as_mut_ptr(),
                    buffer.len(),
                    &mut found,
                )
            };
            if code == libc::ERANGE && size < MAX_RECORD {
                size = (size * 2).min(MAX_RECORD);
                continue;
            }
            if code != 0 {
                return Err(Error::UnknownUser {
                    name: name.to_owned(),
                    reason: Some(std::io::Error::from_raw_os_error(code).to_string()),
                });
            }
            if found.is_null() {
                return Err(unknown());
            }
            return Ok(OsUser {
                uid: record.pw_uid,
                gid: record.pw_gid,
            });
        }
    }

    /// The name of the user this process runs as, when the database has one (for tests and
    /// messages).
    #[cfg(test)]
    pub(crate) fn current_name() -> Option<String> {
        // SAFETY: getuid cannot fail; getpwuid's result is read at once, on this thread, before
        // any other passwd call of ours (tests only).
        unsafe {
            let record = libc::getpwuid(libc::getuid());
            if record.is_null() || (*record).pw_name.is_null() {
                return None;
            }
            Some(
                std::ffi::CStr::from_ptr((*record).pw_name)
                    .to_string_lossy()
                    .into_owned(),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_name_is_a_typed_error() {
        let error = OsUser::lookup("no-such-user-claude-tools").unwrap_err();
        assert!(
            matches!(&error, Error::UnknownUser { name, .. } if name == "no-such-user-claude-tools"),
            "{error:?}"
        );
        assert!(error.to_string().contains("no-such-user-claude-tools"));
        // A NUL byte names no user; it is not a panic.
        assert!(matches!(
            OsUser::lookup("ro\0ot"),
            Err(Error::UnknownUser { .. })
        ));
    }

    #[test]
    fn the_current_user_resolves_to_this_process_ids() {
        let Some(name) = OsUser::current_name() else {
            return;
        };
        let user = OsUser::lookup(&name).unwrap();
        // SAFETY: getuid cannot fail.
        assert_eq!(user.uid, unsafe { libc::getuid() });
    }
}
