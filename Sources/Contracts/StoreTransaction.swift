/// One open transaction of a storage backend, as services hand it to stores: services never
/// see what it is (a GRDB `Database` on SQLite; a connection on another backend), so they don't
/// change when a second set of stores arrives. Each backend's stores open it back up.
public protocol StoreTransaction: AnyObject {}
