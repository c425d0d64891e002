//! The few WebDriver commands these tests use, as W3C WebDriver's JSON over
//! HTTP to a local ChromeDriver (<https://www.w3.org/TR/webdriver2/>), with
//! the HTTP client the crate already has. A command that fails panics with
//! WebDriver's own error and message: the test fails there, saying why.

use std::time::Duration;

use serde_json::{Value, json};

/// The key under which WebDriver names an element in JSON.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// One browser session; deleted (the browser closed) when dropped.
pub struct Session {
    base: String,
    agent: ureq::Agent,
}

/// An element of the current page, by WebDriver's reference.
#[derive(Clone)]
pub struct Element(String);

impl Session {
    /// Opens a session on the ChromeDriver at `driver` (`http://127.0.0.1:PORT`).
    pub fn new(driver: &str, capabilities: Value) -> Self {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .into();
        let value = call(
            &agent,
            "POST",
            &format!("{driver}/session"),
            Some(json!({ "capabilities": { "alwaysMatch": capabilities } })),
        );
        let id = value["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session id in {value}"));
        Self {
            base: format!("{driver}/session/{id}"),
            agent,
        }
    }

    fn get(&self, path: &str) -> Value {
        call(&self.agent, "GET", &format!("{}{path}", self.base), None)
    }

    fn post(&self, path: &str, body: Value) -> Value {
        call(
            &self.agent,
            "POST",
            &format!("{}{path}", self.base),
            Some(body),
        )
    }

    /// Loads `url` and returns when the page has loaded.
    pub fn goto(&self, url: &str) {
        self.post("/url", json!({ "url": url }));
    }

    pub fn refresh(&self) {
        self.post("/refresh", json!({}));
    }

    pub fn current_url(&self) -> String {
        self.get("/url").as_str().unwrap_or_default().to_string()
    }

    /// The element `css` selects; panics when there is none.
    pub fn find(&self, css: &str) -> Element {
        self.try_find(css)
            .unwrap_or_else(|| panic!("no element {css} on {}", self.current_url()))
    }

    /// The element `css` selects, if the page has one now.
    pub fn try_find(&self, css: &str) -> Option<Element> {
        let answer = self.command(
            "POST",
            "/element",
            Some(json!({ "using": "css selector", "value": css })),
        );
        match answer {
            Ok(value) => Some(Element(
                value[ELEMENT]
                    .as_str()
                    .unwrap_or_else(|| panic!("no element reference in {value}"))
                    .to_string(),
            )),
            Err(error) if error == "no such element" => None,
            Err(error) => panic!("find {css}: {error}"),
        }
    }

    /// Types `text` into the element (after clearing it).
    pub fn fill(&self, element: &Element, text: &str) {
        self.post(&format!("/element/{}/clear", element.0), json!({}));
        self.post(
            &format!("/element/{}/value", element.0),
            json!({ "text": text }),
        );
    }

    pub fn click(&self, element: &Element) {
        self.post(&format!("/element/{}/click", element.0), json!({}));
    }

    /// Two clicks on the element in one input action sequence: as fast as
    /// the browser takes input, no round trip to the test between them.
    pub fn double_click(&self, element: &Element) {
        let at = json!({ "type": "pointerMove", "duration": 0, "x": 0, "y": 0,
                         "origin": { ELEMENT: element.0 } });
        let down = json!({ "type": "pointerDown", "button": 0 });
        let up = json!({ "type": "pointerUp", "button": 0 });
        self.post(
            "/actions",
            json!({ "actions": [{
                "type": "pointer",
                "id": "mouse",
                "parameters": { "pointerType": "mouse" },
                "actions": [at, down, up, down, up]
            }]}),
        );
    }

    /// The element's rendered text.
    pub fn text(&self, element: &Element) -> String {
        self.get(&format!("/element/{}/text", element.0))
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// The element's attribute `name`, if it has one.
    pub fn attribute(&self, element: &Element, name: &str) -> Option<String> {
        self.get(&format!("/element/{}/attribute/{name}", element.0))
            .as_str()
            .map(str::to_string)
    }

    /// Runs `script` (a function body) in the page and returns its value.
    pub fn execute(&self, script: &str) -> Value {
        self.post("/execute/sync", json!({ "script": script, "args": [] }))
    }

    fn command(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, String> {
        request(&self.agent, method, &format!("{}{path}", self.base), body)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // Closes the browser; ChromeDriver itself is ended by its owner.
        let _ = request(&self.agent, "DELETE", &self.base, None);
    }
}

fn call(agent: &ureq::Agent, method: &str, url: &str, body: Option<Value>) -> Value {
    request(agent, method, url, body).unwrap_or_else(|error| panic!("{method} {url}: {error}"))
}

/// WebDriver's `value`, or its error as "error: message" (just "error" for
/// the ones callers branch on, such as "no such element").
fn request(
    agent: &ureq::Agent,
    method: &str,
    url: &str,
    body: Option<Value>,
) -> Result<Value, String> {
    let answer = match (method, body) {
        ("GET", _) => agent.get(url).call(),
        ("DELETE", _) => agent.delete(url).call(),
        (_, body) => agent
            .post(url)
            .header("content-type", "application/json")
            .send(body.unwrap_or(json!({})).to_string()),
    };
    let response = answer.map_err(|e| format!("no answer from ChromeDriver: {e}"))?;
    let status = response.status().as_u16();
    let text = response
        .into_body()
        .read_to_string()
        .map_err(|e| format!("unreadable answer from ChromeDriver: {e}"))?;
    let mut json: Value =
        serde_json::from_str(&text).map_err(|e| format!("{e}: {status} {text}"))?;
    let value = json["value"].take();
    match value["error"].as_str() {
        Some("no such element") => Err("no such element".into()),
        Some(error) => Err(format!(
            "{error}: {}",
            value["message"].as_str().unwrap_or_default()
        )),
        None if status >= 400 => Err(format!("{status} {text}")),
        None => Ok(value),
    }
}
