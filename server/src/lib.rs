pub mod proto {}
