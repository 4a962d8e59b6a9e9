//! (attacks of this class are added here)
