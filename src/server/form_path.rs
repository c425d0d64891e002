//! Which form a request's path names: the CORS layer and the page headers
//! both ask it before any route runs.

/// `contact` of `/f/contact`, `/f/contact/thanks`, `/f/contact/receipts/k`.
pub(super) fn form_name(path: &str) -> Option<&str> {
    path.strip_prefix("/f/")?
        .split('/')
        .next()
        .filter(|n| !n.is_empty())
}

#[cfg(test)]
mod tests {
    use super::form_name;

    #[test]
    fn the_form_of_a_path() {
        assert_eq!(form_name("/f/contact"), Some("contact"));
        assert_eq!(form_name("/f/contact/receipts/k1"), Some("contact"));
        assert_eq!(form_name("/healthz"), None);
        assert_eq!(form_name("/f/"), None);
    }
}
