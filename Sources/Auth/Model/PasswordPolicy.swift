/// The v1 password rules: at least 8 characters (at most 256), and not one of the passwords
/// attackers try first. Pure, so it is unit-tested without I/O.
public enum PasswordPolicy {
    public static let minimumLength = 8
    public static let maximumLength = 256
    /// No password a policy accepts is longer in UTF-8 (256 characters of up to 4 bytes): a
    /// longer one is refused before it is hashed or counted.
    public static let maximumBytes = 1024

    /// nil when the password is acceptable, otherwise the reason, worded for the user.
    public static func violation(_ password: String, username: String? = nil) -> String? {
        if password.count < minimumLength { return "The password must be at least \(minimumLength) characters." }
        if password.count > maximumLength { return "The password must be at most \(maximumLength) characters." }
        let lowered = password.lowercased()
        if commonPasswords.contains(lowered) { return "This password is too common; choose another." }
        if let username, !username.isEmpty, lowered == username.lowercased() {
            return "The password must differ from the username."
        }
        return nil
    }

    /// A short list of the most used passwords (from public breach statistics).
    static let commonPasswords: Set<String> = [
        "password", "password1", "password12", "password123", "passw0rd", "p@ssw0rd", "p@ssword",
        "12345678", "123456789", "1234567890", "11111111", "00000000", "87654321", "12341234",
        "qwertyui", "qwertyuiop", "qwerty123", "qwerty12", "1q2w3e4r", "1qaz2wsx", "zaq12wsx",
        "iloveyou", "sunshine", "princess", "football", "baseball", "welcome1", "welcome123",
        "abc12345", "abcd1234", "letmein1", "trustno1", "superman", "starwars", "whatever",
        "dragon12", "monkey12", "michael1", "shadow12", "master12", "computer", "internet",
        "changeme", "admin123", "administrator", "student1", "student123", "college1", "university",
        "letmein123", "asdfghjk", "asdf1234", "zxcvbnm1", "aaaaaaaa", "88888888", "66666666",
        "secret12", "default1", "passpass", "test1234", "testtest", "q1w2e3r4", "1234qwer",
    ]
}
